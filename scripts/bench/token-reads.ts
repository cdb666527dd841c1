// What checking an API token costs on a request, against checking a JWT (issue point 5): cached
// getPost over the seeded posts, signed in with the bench author's access token and with an API
// token of theirs (content:read), in one run. Both checks read the database once a request (the
// JWT's live session, the token's row, each joined with the user: revocation and demotion take
// effect at once either way), and the post comes from the cache. The two sides take the same
// sequence of posts, the same warm-up each, in the order JWT, token, token, JWT, so that a drift
// of the machine (two cores shared with the load generator, and with whatever else runs) falls on
// both; each side's figure is the sum of its two runs. Every path is first asked with each: both
// must answer 200 with the same body.
import { answerOf } from './answers.ts'
import { measure, spread, type Figure } from './measure.ts'

export const TOKEN_READS_TARGET = 'getPost cached with an API token >= 0.9 x with a JWT (same run)'

/** The settings the token figure needs: its rate limit out of the way (its counting still runs). */
export const TOKEN_BENCH_ENV = { API_TOKEN_RATE_LIMIT: '1000000', API_TOKEN_RATE_WINDOW_SECONDS: '1' }

export interface TokenReads {
  jwt: Figure
  token: Figure
  /** The token's req/s over the JWT's. */
  ratio: number
  /** Paths whose answers differed between the two credentials. */
  differences: string[]
  /** The four runs, in the order they ran. */
  runs: Figure[]
}

interface Options {
  duration: number
  warmSeconds: number
  connections: number
}

async function json(url: string, init: { method: string; body?: unknown; token?: string }) {
  const response = await fetch(url, {
    method: init.method,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: JSON.stringify(init.body),
  })
  const body = (await response.json()) as { data: Record<string, string> }
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${JSON.stringify(body)}`)
  return body.data
}

/** An access token of the author's, and an API token of theirs that reads content. */
export async function credentialsOf(serverUrl: string, author: { email: string; password: string }) {
  const { accessToken } = await json(`${serverUrl}/login`, {
    method: 'POST',
    body: { email: author.email, password: author.password },
  })
  const { token } = await json(`${serverUrl}/me/tokens`, {
    method: 'POST',
    token: accessToken,
    body: { name: 'bench', scopes: ['content:read'] },
  })
  return { jwt: accessToken!, token: token! }
}

/** Sums two runs of one side into its figure (req/s over both, the worse p50 and p99). */
const bothRuns = (name: string, [first, second]: [Figure, Figure]): Figure => ({
  name,
  requestsPerSecond: Math.round((first.requestsPerSecond + second.requestsPerSecond) / 2),
  p50Ms: Math.max(first.p50Ms, second.p50Ms),
  p99Ms: Math.max(first.p99Ms, second.p99Ms),
  non2xx: first.non2xx + second.non2xx,
  errors: first.errors + second.errors,
  requests: (first.requests ?? 0) + (second.requests ?? 0),
})

export async function measureTokenReads(
  serverUrl: string,
  paths: string[],
  credentials: { jwt: string; token: string },
  options: Options,
): Promise<TokenReads> {
  const headers = {
    jwt: { authorization: `Bearer ${credentials.jwt}` },
    token: { authorization: `Bearer ${credentials.token}` },
  }
  const differences: string[] = []
  for (const path of paths) {
    const [withJwt, withToken] = [
      await answerOf(`${serverUrl}${path}`, headers.jwt),
      await answerOf(`${serverUrl}${path}`, headers.token),
    ]
    const body = (answer: typeof withJwt) =>
      answer.body.toString('latin1').replaceAll(answer.headers['x-request-id'] ?? '\u0000', '<request id>')
    if (withJwt.status !== 200 || withToken.status !== 200 || body(withJwt) !== body(withToken))
      differences.push(`${path}: ${withJwt.status} with the JWT, ${withToken.status} with the token`)
  }
  const run = async (side: 'jwt' | 'token', label: string) => {
    const sequence = spread(paths)
    const common = {
      url: serverUrl,
      headers: headers[side],
      connections: options.connections,
      requests: sequence.requests,
    }
    await measure(`${label} (warm-up)`, { ...common, duration: options.warmSeconds })
    return measure(label, { ...common, duration: options.duration })
  }
  const jwtFirst = await run('jwt', 'getPost cached, JWT')
  const tokenFirst = await run('token', 'getPost cached, API token')
  const tokenSecond = await run('token', 'getPost cached, API token')
  const jwtSecond = await run('jwt', 'getPost cached, JWT')
  const jwt = bothRuns('getPost cached, with a JWT', [jwtFirst, jwtSecond])
  const token = bothRuns('getPost cached, with an API token', [tokenFirst, tokenSecond])
  const ratio = Math.round((token.requestsPerSecond / jwt.requestsPerSecond) * 100) / 100
  const runs = [jwtFirst, tokenFirst, tokenSecond, jwtSecond]
  return { jwt, token: { ...token, ratio, ratioTo: jwt.name }, ratio, differences, runs }
}

/** Whether the figure meets its target: every answer 2xx, the same on both sides, and the ratio. */
export const tokenReadsMet = (reads: TokenReads) =>
  reads.ratio >= 0.9 &&
  reads.differences.length === 0 &&
  [reads.jwt, reads.token].every((f) => f.non2xx + f.errors === 0)

/**
 * `npm run bench -- tokens`: this figure alone, on a server of its own (the embedded database, or
 * PostgreSQL when DATABASE_URL is set, in a scratch database), seeded as the whole bench seeds.
 */
export async function benchTokensOnly(options: Options & { posts: number; env: Record<string, string> }) {
  const { scratchDatabase } = await import('./database.ts')
  const { BENCH_ADMIN, seed } = await import('./seed.ts')
  const { startServer } = await import('./server.ts')
  const { formatFigure } = await import('./measure.ts')
  const database = await scratchDatabase(process.env.DATABASE_URL)
  const server = await startServer({ ...database.env, ...BENCH_ADMIN, ...options.env, ...TOKEN_BENCH_ENV })
  try {
    const data = await seed(server.url, options.posts)
    const paths = data.postIds.map((id) => `/posts/${id}`)
    const reads = await measureTokenReads(server.url, paths, await credentialsOf(server.url, data), options)
    console.log(
      `bench tokens: ${database.kind} database, ${options.duration} s per run, ${options.connections} connections`,
    )
    for (const figure of reads.runs) console.log(`  ${formatFigure(figure)}`)
    for (const figure of [reads.jwt, reads.token]) console.log(formatFigure(figure))
    for (const difference of reads.differences) console.log(`  answers differ: ${difference}`)
    console.log(`  ${tokenReadsMet(reads) ? 'met ' : 'MISS'}  ${TOKEN_READS_TARGET}`)
    return reads
  } finally {
    await server.stop()
    await database.drop()
  }
}
