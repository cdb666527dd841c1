// Process entry: configuration, then the app (database, migrations, queue), then listen.
// SIGTERM/SIGINT stop taking connections, let requests in flight finish, stop the queue,
// close the database and exit 0.
import { existsSync } from 'node:fs'
import { inspect } from 'node:util'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'

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
try {
  app = await buildApp(config)
  await app.listen({ host: config.host, port: config.port })
} catch (error) {
  // Not every failure is an Error (PGlite throws its file system's ErrnoError objects).
  console.error(`Start-up failed: ${error instanceof Error ? error.message : inspect(error)}`)
  process.exit(1)
}
app.log.info(
  `${config.databaseUrl === null ? `embedded database in ${config.dataDir ?? 'memory'}` : 'PostgreSQL'}; docs at /docs`,
)

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  app.log.info({ signal }, 'shutting down')
  const timer = setTimeout(() => {
    app.log.error('shutdown timed out; exiting')
    process.exit(1)
  }, config.shutdownTimeoutMs + 5000)
  timer.unref()
  try {
    await app.close()
    process.exit(0)
  } catch (error) {
    app.log.error({ err: error }, 'error while shutting down')
    process.exit(1)
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
