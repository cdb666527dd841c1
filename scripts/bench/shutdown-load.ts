// The load of npm run bench:shutdown: keep-alive client loops against the balancer, each signed in
// as a user of its own (so that no per-user limit of the writes is shared), sending a mix of reads
// and writes: GET /ping, GET /posts, GET /posts/{id}, createPost and createComment (a fifth of the
// requests are POSTs: a POST lost is the worst case). Every request is counted in the phase in
// which it was sent, with its outcome:
// - a failure: a socket error, an answer cut short, the balancer's own 502/503 (x-balancer-error),
//   or any 5xx;
// - rate-limited (429): reported, not a failure;
// - unexpected: any other status than the operation's success (expected: none).
import { Agent, request } from 'node:http'
import { BALANCER_ERROR_HEADER } from './balancer.ts'

type Outcome = { status: number; balancerError?: string; body: string } | { error: string }

export interface Writer {
  token: string
}

export interface PhaseCounts {
  requests: number
  failed: number
  posts: number
  postsFailed: number
}

export interface LoadReport {
  requests: number
  failed: number
  /** By kind: `client: <code>`, `balancer <status>: <upstream>: <code>`, `service <status>`. */
  failures: Record<string, number>
  rateLimited: number
  unexpected: Record<string, number>
  posts: number
  postsFailed: number
  phases: Record<string, PhaseCounts>
}

export interface Load {
  /** The phase new requests are counted in. */
  phase: string
  /** Ends every loop after its request in flight; resolves with the counts. */
  stop(): Promise<LoadReport>
}

function send(agent: Agent, base: string, method: string, path: string, body?: unknown, token?: string) {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const headers: Record<string, string> = {}
  if (payload !== undefined) headers['content-type'] = 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return new Promise<Outcome>((resolve) => {
    const req = request(`${base}${path}`, { method, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        const balancerError = res.headers[BALANCER_ERROR_HEADER]
        resolve({
          status: res.statusCode!,
          body: text,
          ...(balancerError ? { balancerError: String(balancerError) } : {}),
        })
      })
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: `response ${error.code ?? error.message}` }))
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    req.end(payload)
  })
}

const dataOf = (outcome: Outcome) => ('body' in outcome ? JSON.parse(outcome.body).data : undefined)

/** Registers `count` users through `base`; each writes one published post, which the readers read. */
export async function signUp(base: string, count: number): Promise<{ writers: Writer[]; postIds: string[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const stamp = Date.now()
  const one = async (index: number) => {
    const registered = await send(agent, base, 'POST', '/register', {
      email: `bench-shutdown-${stamp}-${index}@example.com`,
      password: 'bench shutdown password',
      name: `Bench ${index}`,
    })
    if (!('status' in registered) || registered.status !== 201)
      throw new Error(`register: ${JSON.stringify(registered)}`)
    const token = String(dataOf(registered).accessToken)
    const post = { title: `Bench post ${index}`, body: 'A post the bench reads.', status: 'published' }
    const created = await send(agent, base, 'POST', '/posts', post, token)
    if (!('status' in created) || created.status !== 201) throw new Error(`createPost: ${JSON.stringify(created)}`)
    return { writer: { token }, postId: String(dataOf(created).id) }
  }
  const made = await Promise.all(Array.from({ length: count }, (_, index) => one(index)))
  agent.destroy()
  return { writers: made.map((each) => each.writer), postIds: made.map((each) => each.postId) }
}

/** What loop `index` sends at its step `n`, and the status it expects. */
function step(index: number, n: number, postIds: string[]) {
  const postId = postIds[(n * 7 + index) % postIds.length]!
  switch (n % 10) {
    case 0:
      return {
        method: 'POST',
        path: '/posts',
        body: { title: `Bench ${index}.${n}`, body: `Written by loop ${index} at step ${n}.`, status: 'published' },
        expected: 201,
      }
    case 5:
      return {
        method: 'POST',
        path: `/posts/${postId}/comments`,
        body: { body: `Comment ${index}.${n}` },
        expected: 201,
      }
    case 1:
    case 6:
      return { method: 'GET', path: '/ping', expected: 200 }
    case 2:
    case 4:
    case 8:
      return { method: 'GET', path: `/posts/${postId}`, expected: 200 }
    default:
      return { method: 'GET', path: '/posts?limit=20', expected: 200 }
  }
}

export function startLoad(base: string, connections: number, writers: Writer[], postIds: string[]): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const report: LoadReport = {
    requests: 0,
    failed: 0,
    failures: {},
    rateLimited: 0,
    unexpected: {},
    posts: 0,
    postsFailed: 0,
    phases: {},
  }
  const add = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1)
  let stopped = false
  const load: Load = { phase: 'warm-up', stop: async () => report }

  function count(phase: string, method: string, expected: number, outcome: Outcome) {
    const counts = (report.phases[phase] ??= { requests: 0, failed: 0, posts: 0, postsFailed: 0 })
    const post = method === 'POST'
    let failure: string | undefined
    if ('error' in outcome) failure = `client: ${outcome.error}`
    else if (outcome.balancerError !== undefined) failure = `balancer ${outcome.status}: ${outcome.balancerError}`
    else if (outcome.status >= 500) failure = `service ${outcome.status}`
    else if (outcome.status === 429) report.rateLimited++
    else if (outcome.status !== expected) add(report.unexpected, `${method} ${outcome.status}`)
    report.requests++
    counts.requests++
    if (post) {
      report.posts++
      counts.posts++
    }
    if (failure === undefined) return
    add(report.failures, failure)
    report.failed++
    counts.failed++
    if (post) {
      report.postsFailed++
      counts.postsFailed++
    }
  }

  async function loop(index: number) {
    const writer = writers[index % writers.length]!
    for (let n = index; !stopped; n++) {
      const { method, path, body, expected } = step(index, n, postIds)
      const phase = load.phase
      const outcome = await send(agent, base, method, path, body, body === undefined ? undefined : writer.token)
      count(phase, method, expected, outcome)
      if (path === '/posts' && 'status' in outcome && outcome.status === 201) postIds.push(String(dataOf(outcome).id))
    }
  }
  const loops = Array.from({ length: connections }, (_, index) => loop(index))
  load.stop = async () => {
    stopped = true
    await Promise.all(loops)
    agent.destroy()
    return report
  }
  return load
}
