// What both sides of a compared figure answer (scripts/bench/equal-work.ts): every path of its
// sequence asked once of each, one at a time, and where the answers differ. Against the bytes
// peer, to the byte (less the request id and /ping's clock), headers and framing included;
// against the pg peer, by data and paging, with the same framing.
import { get } from 'node:http'
import { isDeepStrictEqual } from 'node:util'

export interface PeerSide {
  url: string
  /** bytes: the fixed-answer peer, compared to the byte; data: the node:http + pg peer, compared by data. */
  answers: 'bytes' | 'data'
}

export interface Answer {
  status: number
  headers: Record<string, string>
  body: Buffer
}

export function answerOf(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)])),
          body: Buffer.concat(chunks),
        }),
      )
    }).on('error', reject)
  })
}

/** How the body is delimited: by its length, or chunked. */
const framing = (answer: Answer) =>
  answer.headers['transfer-encoding'] === undefined
    ? `content-length${Number(answer.headers['content-length']) === answer.body.length ? '' : " (not the body's)"}`
    : `transfer-encoding ${answer.headers['transfer-encoding']}`

/** Headers that differ per request or per connection on any server. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'connection', 'keep-alive'])

/** The body less what differs per request: the request id, and /ping's clock. */
const steady = (answer: Answer) =>
  answer.body
    .toString('latin1')
    .replaceAll(answer.headers['x-request-id'] ?? '\u0000', '<request id>')
    .replace(/^(\{"data":\{"status":"ok","version":"[^"]*","time":")[^"]*"/, '$1<now>"')

function differenceOf(kind: PeerSide['answers'], peer: Answer, ours: Answer): string | null {
  if (peer.status !== ours.status) return `status ${peer.status} against ours ${ours.status}`
  if (framing(peer) !== framing(ours)) return `framing ${framing(peer)} against ours ${framing(ours)}`
  if (kind === 'bytes') {
    const headers = (answer: Answer) =>
      Object.entries(answer.headers)
        .filter(([name]) => !PER_REQUEST.has(name))
        .sort()
    const [theirs, mine] = [headers(peer), headers(ours)]
    const differing = [...new Set([...theirs, ...mine].map(([name]) => name))].filter(
      (name) => peer.headers[name] !== ours.headers[name],
    )
    if (differing.length > 0) return `other headers: ${differing.join(', ')}`
    return steady(peer) === steady(ours) ? null : 'other bytes'
  }
  type Envelope = { data: unknown; meta: { page?: unknown } }
  const [theirs, mine] = [peer, ours].map((answer) => JSON.parse(answer.body.toString('utf8')) as Envelope) as [
    Envelope,
    Envelope,
  ]
  if (!isDeepStrictEqual(theirs.data, mine.data)) return 'other data'
  return isDeepStrictEqual(theirs.meta.page, mine.meta.page) ? null : 'other paging'
}

/** Every path of the sequence once on both sides, each sent `headers` as the figure's requests are: where their answers differ. */
export async function answerDifferences(
  peer: PeerSide,
  ours: string,
  paths: string[],
  headers: Record<string, string> = {},
): Promise<string[]> {
  const differences: string[] = []
  for (const path of new Set(paths)) {
    const difference = differenceOf(
      peer.answers,
      await answerOf(`${peer.url}${path}`, headers),
      await answerOf(`${ours}${path}`, headers),
    )
    if (difference !== null) differences.push(`${path}: ${difference}`)
  }
  return differences
}

/** Without a peer: every path once on our side, which must answer 200. */
export async function statusDifferences(ours: string, paths: string[], headers: Record<string, string> = {}) {
  const differences: string[] = []
  for (const path of new Set(paths)) {
    const answer = await answerOf(`${ours}${path}`, headers)
    if (answer.status !== 200) differences.push(`${path}: status ${answer.status}`)
  }
  return differences
}
