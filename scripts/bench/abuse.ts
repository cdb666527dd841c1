// The benchmark's abuse figure: GET /ping while signed-up attackers send what costs the service
// most per byte — hostile image uploads (a thin 1 × 40 000 000 PNG, a 16-bit 8000 × 5000 PNG),
// post bodies that are pathological for Markdown scanners ("![", "[", "`" × 50 000) and an
// unauthenticated 0.8 MB login body of unknown fields. Each attacker sends one request at a
// time, again and again until the figure's time is up; the answers they got are counted.
import { measure, type Figure } from './measure.ts'
import { readMemory, watchPeakRss, type Memory } from './memory.ts'
import { deepPng, thinPng } from './hostile-images.ts'

/** Concurrent hostile uploads (the measurement: 12), half of each image. */
const UPLOADERS = 12
/** A hostile request still unanswered after this is counted as timed out. */
const ATTACK_TIMEOUT_MS = 120_000

export interface Attack {
  name: string
  /** One hostile request; resolves with what came back ("200", "422", "dropped: EPIPE"). */
  send(): Promise<string>
}

export interface AbuseResult {
  ping: Figure
  /** Answers each attack got, by status. */
  answers: Record<string, Record<string, number>>
  before: Memory
  /** Highest RSS sampled while the attacks ran. */
  peakRssMiB: number
  after: Memory
}

async function call(url: string, init: RequestInit): Promise<string> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ATTACK_TIMEOUT_MS) })
    await response.arrayBuffer()
    return String(response.status)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return (error as Error).name === 'TimeoutError'
      ? 'timed out'
      : `dropped: ${cause?.code ?? (error as Error).message}`
  }
}

async function json(url: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  const parsed = (await response.json()) as { data: Record<string, unknown> }
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(parsed)}`)
  return parsed.data
}

/** An attacker: a fresh account with a post of its own to upload thumbnails to. */
async function attacker(baseUrl: string, index: number) {
  const email = `attacker-${index}-${Date.now()}@example.com`
  const { accessToken } = (await json(`${baseUrl}/register`, {
    email,
    password: 'attacker-password-1234',
    name: `Attacker ${index}`,
  })) as { accessToken: string }
  const post = await json(`${baseUrl}/posts`, { title: 'Mine', body: 'A post to hang thumbnails on.' }, accessToken)
  return { token: accessToken, postId: String(post.id) }
}

/** A login body of about `bytes` bytes, every field unknown to the schema. */
function manyUnknownFields(bytes: number) {
  const fields: string[] = []
  for (let length = 0, index = 0; length < bytes; index++) {
    const field = `"field${index}":0`
    fields.push(field)
    length += field.length + 1
  }
  return `{${fields.join(',')}}`
}

/** Every attack of the abuse figure, against `baseUrl`; makes the attackers' accounts and files. */
export async function prepareAttacks(baseUrl: string): Promise<Attack[]> {
  const images = { 'thin PNG 1×40000000': thinPng(40_000_000), '16-bit PNG 8000×5000': await deepPng(8000, 5000) }
  const uploads = await Promise.all(
    Array.from({ length: UPLOADERS }, async (_, index) => {
      const [name, bytes] = Object.entries(images)[index % 2]!
      const { token, postId } = await attacker(baseUrl, index)
      const send = () => {
        const form = new FormData()
        form.append('file', new Blob([bytes], { type: 'image/png' }), 'hostile.png')
        return call(`${baseUrl}/posts/${postId}/thumbnail`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}` },
          body: form,
        })
      }
      return { name: `uploadPostThumbnail: ${name} (${Math.round(bytes.length / 1024)} KB)`, send }
    }),
  )
  const writer = await attacker(baseUrl, UPLOADERS)
  const bodies = Object.entries({
    '"![" × 50000': '!['.repeat(50_000),
    '"[" × 50000': '['.repeat(50_000),
    '"`" × 50000': '`'.repeat(50_000),
  }).map(([name, body]) => ({
    name: `createPost: body ${name}`,
    send: () =>
      call(`${baseUrl}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${writer.token}` },
        body: JSON.stringify({ title: 'Hostile', body }),
      }),
  }))
  const loginBody = manyUnknownFields(800_000)
  const login = {
    name: `login: ${Math.round(loginBody.length / 1000)} KB of unknown fields, anonymous`,
    send: () =>
      call(`${baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody }),
  }
  return [...uploads, ...bodies, login]
}

/**
 * /ping measured for `seconds` (autocannon, `connections`) while every attack runs in a loop;
 * the server's memory before, at its peak and after the attacks have all been answered.
 */
export async function measureAbuse(
  server: { url: string; pid: number },
  attacks: Attack[],
  seconds: number,
  connections: number,
): Promise<AbuseResult> {
  const before = await readMemory(server.pid, server.url)
  const peak = watchPeakRss(server.pid)
  const until = Date.now() + seconds * 1000
  const answers: AbuseResult['answers'] = {}
  const loops = attacks.map(async (attack) => {
    while (Date.now() < until) {
      const answer = await attack.send()
      const counts = (answers[attack.name] ??= {})
      counts[answer] = (counts[answer] ?? 0) + 1
    }
  })
  const ping = await measure('GET /ping during abuse', { url: `${server.url}/ping`, connections, duration: seconds })
  // Requests already sent are answered before the memory after is read: bounded by ATTACK_TIMEOUT_MS.
  await Promise.all(loops)
  const peakRssMiB = peak.stop()
  const after = await readMemory(server.pid, server.url)
  return { ping, answers, before, peakRssMiB, after }
}
