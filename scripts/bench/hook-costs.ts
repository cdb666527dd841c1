// What each of our functions on the request path costs, read from a V8 CPU profile of the server
// (`node --cpu-prof`) taken while it answered one kind of request: the time of every sample is
// given to the innermost frame of ours (dist/) on its stack, unless Fastify's hook runner comes
// first: a hook calls `done`, and the runner then starts the next hook or the route, whose time is
// not that hook's. Time in Fastify and Node outside our frames is counted apart, as is idle time.
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface CpuProfile {
  /** Microseconds on the monotonic clock, which process.hrtime reads too. */
  startTime: number
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface FrameCost {
  /** src/ path of the compiled file, and the function's name when it has one. */
  where: string
  /** Microseconds of CPU per request answered. */
  microsPerRequest: number
}

export interface HookCosts {
  requests: number
  /** CPU per request on the main thread, all of it (ours, Fastify's, Node's, V8's and its collector's). */
  busyMicrosPerRequest: number
  /** Ours, by function, most costly first. */
  ours: FrameCost[]
  /**
   * Fastify's hook runner starting each hook, and whatever no frame of ours is under: Node, V8,
   * and the garbage collector, whoever's allocations it collects.
   */
  framework: { hookDispatchMicrosPerRequest: number; restMicrosPerRequest: number; top: FrameCost[] }
}

/** The one sample kind that is not CPU: the event loop waiting. (`(program)`, V8's own work, is busy.) */
const IDLE = '(idle)'
/** Fastify's hook runners: the functions that call a hook, and that a hook's `done` calls back. */
const isHookRunner = (frame: ProfileNode['callFrame']) =>
  frame.url.endsWith('/fastify/lib/hooks.js') && ['next', 'hookIterator', 'handleResolve'].includes(frame.functionName)
/** The compiled service is dist/ at the project's root (libraries have dist/ folders of their own). */
const DIST = `file://${process.cwd()}/dist/`
const ourSource = (url: string) =>
  url.startsWith(DIST) ? `src/${url.slice(DIST.length).replace(/\.js$/, '.ts')}` : null

/** Now on the monotonic clock of CPU profiles, in microseconds. */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n)

/**
 * Splits the samples of the profile at `file` taken within `window` (monotonicMicros) by the rules
 * above, per request of the `requests` answered then.
 */
export function hookCosts(file: string, window: { from: number; to: number }, requests: number): HookCosts {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parents = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  const owner = new Map<number, string | null>()
  /** Ours, `dispatch` (a hook runner's own time) or null (Fastify's or Node's). */
  const ownerOf = (id: number): string | null => {
    if (owner.has(id)) return owner.get(id)!
    let found: string | null = null
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at)!.callFrame
      if (isHookRunner(frame)) {
        found = at === id ? 'dispatch' : null
        break
      }
      const source = ourSource(frame.url)
      if (source !== null) {
        found = frame.functionName === '' ? source : `${source} ${frame.functionName}`
        break
      }
    }
    owner.set(id, found)
    return found
  }
  const ours = new Map<string, number>()
  /** The rest by the function running (its own time), named by package or Node module. */
  const others = new Map<string, number>()
  const nameOf = ({ functionName, url }: ProfileNode['callFrame']) =>
    `${url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\//, '')} ${functionName || '(anonymous)'}`
  let busy = 0
  let dispatch = 0
  let rest = 0
  let at = profile.startTime
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0
    at += micros
    if (at < window.from || at > window.to) return
    if (nodes.get(id)!.callFrame.functionName === IDLE) return
    busy += micros
    const where = ownerOf(id)
    if (where === 'dispatch') dispatch += micros
    else if (where === null) {
      rest += micros
      const name = nameOf(nodes.get(id)!.callFrame)
      others.set(name, (others.get(name) ?? 0) + micros)
    } else ours.set(where, (ours.get(where) ?? 0) + micros)
  })
  const perRequest = (micros: number) => micros / requests
  const costliest = (costs: Map<string, number>) =>
    [...costs]
      .map(([where, micros]) => ({ where, microsPerRequest: perRequest(micros) }))
      .sort((a, b) => b.microsPerRequest - a.microsPerRequest)
  return {
    requests,
    busyMicrosPerRequest: perRequest(busy),
    ours: costliest(ours),
    framework: {
      hookDispatchMicrosPerRequest: perRequest(dispatch),
      restMicrosPerRequest: perRequest(rest),
      top: costliest(others).slice(0, 20),
    },
  }
}
