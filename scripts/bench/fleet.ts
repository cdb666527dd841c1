// A fleet of service instances behind the bench's balancer (scripts/bench/balancer.ts), and the
// rolling restart of npm run bench:shutdown: SIGTERM one instance, wait for its exit, start its
// replacement (a new process) and wait until the balancer has it in rotation. Each instance is
// src/server.ts as a process of its own (test/helpers/server-process.ts), on one shared database.
import { once } from 'node:events'
import { startServer, type ServerProcess } from '../../test/helpers/server-process.ts'
import type { Balancer } from './balancer.ts'

export interface Instance {
  name: string
  server: ServerProcess
}

export interface Restart {
  instance: string
  exitCode: number | null
  /** From SIGTERM until the balancer's probe took it out of rotation. */
  msFromSigtermToOutOfRotation: number
  msFromSigtermToExit: number
  replacement: string
  /** From the old one's exit until its replacement was in rotation. */
  msFromExitToReplacementInRotation: number
  /** Its log lines of level warn and above that belong to no request (a timed-out shutdown, say). */
  warnings: string[]
}

const warningsOf = (server: ServerProcess) =>
  server.logs
    .filter((entry) => entry.reqId === undefined && Number(entry.level) >= 40)
    .map((entry) => String(entry.msg))

/** Log lines of requests (two a request) are not kept: the bench runs long enough to pile them up. */
function trimLogs(server: ServerProcess) {
  const timer = setInterval(() => {
    const kept = server.logs.filter((entry) => entry.reqId === undefined || Number(entry.level) >= 40)
    server.logs.splice(0, server.logs.length, ...kept)
  }, 1000)
  return () => clearInterval(timer)
}

/** Starts an instance and adds it to the balancer (out of rotation until a probe finds it ready). */
export async function startInstance(name: string, env: Record<string, string>, balancer: Balancer): Promise<Instance> {
  const server = await startServer(env)
  void server.exit.then(trimLogs(server))
  balancer.add(name, server.url, server.internalUrl)
  return { name, server }
}

/** SIGTERM to `instance`; once it has exited, its replacement `name`, in rotation. */
export async function replace(
  instance: Instance,
  name: string,
  env: Record<string, string>,
  balancer: Balancer,
  onExit: () => void,
): Promise<{ restart: Restart; replacement: Instance }> {
  const sigtermAt = Date.now()
  const outOfRotation = balancer.until(instance.name, false).then(() => Date.now())
  // Its output read to the end (after the exit): for the warnings.
  const closed = once(instance.server.child, 'close')
  instance.server.child.kill('SIGTERM')
  const exitCode = await instance.server.exit
  const exitedAt = Date.now()
  onExit()
  await closed
  // A dead instance fails its probes: it leaves the rotation by itself, if it had not already.
  const outAt = await outOfRotation
  balancer.remove(instance.name)
  const replacement = await startInstance(name, env, balancer)
  await balancer.until(name, true)
  return {
    restart: {
      instance: instance.name,
      exitCode,
      msFromSigtermToOutOfRotation: outAt - sigtermAt,
      msFromSigtermToExit: exitedAt - sigtermAt,
      replacement: name,
      msFromExitToReplacementInRotation: Date.now() - exitedAt,
      warnings: warningsOf(instance.server),
    },
    replacement,
  }
}

/** SIGTERM to each instance at once; their exit codes and times. */
export async function stopAll(instances: Instance[]) {
  return Promise.all(
    instances.map(async ({ name, server }) => {
      const sigtermAt = Date.now()
      const closed = once(server.child, 'close')
      server.child.kill('SIGTERM')
      const exitCode = await server.exit
      const msFromSigtermToExit = Date.now() - sigtermAt
      await closed
      return { instance: name, exitCode, msFromSigtermToExit, warnings: warningsOf(server) }
    }),
  )
}
