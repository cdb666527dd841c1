// Process entry: configuration, then the app (database, migrations, queue), then the public port
// and the internal listener. SIGTERM/SIGINT drain (readiness fails, the public port goes on serving
// for DRAIN_PERIOD_MS), then close (src/http/drain.ts: stop taking connections, end each one after
// its answer, let requests in flight finish), stop the jobs and the queue, close the database and
// exit 0, all within SHUTDOWN_TIMEOUT_MS.
import { existsSync } from 'node:fs'
import type { Server } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { inspect } from 'node:util'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { closeGently } from './http/drain.ts'
import { idleWaitMs } from './config/listeners.ts'
import { closeInternally, listenInternally } from './http/internal-listener.ts'
import { collectStartUpGarbage } from './startup-gc.ts'

if (existsSync('.env')) process.loadEnvFile('.env')

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message)
    process.exit(1)
  }
  throw error
}

let app: Awaited<ReturnType<typeof buildApp>>
let internal: Server
try {
  app = await buildApp(config)
  collectStartUpGarbage()
  await app.listen({ host: config.host, port: config.port })
  internal = await listenInternally(app, config)
} catch (error) {
  // Not every failure is an Error (PGlite throws its file system's ErrnoError objects).
  console.error(`Start-up failed: ${error instanceof Error ? error.message : inspect(error)}`)
  process.exit(1)
}
app.log.info(
  `${config.databaseUrl === null ? `embedded database in ${config.dataDir ?? 'memory'}` : 'PostgreSQL'}; docs at /docs` +
    (config.publicDocs ? '' : ' of the internal listener only'),
)

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  app.services.drain.start()
  app.log.info({ signal, drainPeriodMs: config.drainPeriodMs }, 'shutting down: draining')
  const timer = setTimeout(() => {
    app.log.error(`shutdown timed out after SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms); exiting`)
    process.exit(1)
  }, config.shutdownTimeoutMs)
  timer.unref()
  try {
    await sleep(config.drainPeriodMs)
    app.log.info('drain period over: closing the public port')
    await closeGently(app, app.services.drain, idleWaitMs(config))
    await closeInternally(internal)
    process.exit(0)
  } catch (error) {
    app.log.error({ err: error }, 'error while shutting down')
    process.exit(1)
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
