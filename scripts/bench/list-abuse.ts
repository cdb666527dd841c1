// The benchmark's list-page abuse figure (issue 29, point 1): one signed-up account publishes 100
// of the heaviest posts it can, then ten anonymous readers read the front page (and its
// `limit=100` form) again and again. Reported: the bytes of both pages and the server's RSS
// before, at its peak and after. The target: pages within the list page budget, RSS growth under
// 100 MiB. Before the budget, the front page was 24 MB and each read rebuilt it.
import { readMemory, watchPeakRss, type Memory } from './memory.ts'

/** The issue's attack: 100 posts, ten anonymous readers. */
const POSTS = 100
const READERS = 10
/** LIST_PAGE_MAX_BYTES' default, and room for the envelope around a page's items. */
export const LIST_PAGE_BUDGET_BYTES = 1024 * 1024
const ENVELOPE_BYTES = 4096
export const RSS_GROWTH_TARGET_MIB = 100

/**
 * The heaviest bodies, heaviest first: C0 control characters (six bytes each in JSON) as the issue
 * reproduced it, and once those are refused, a link whose title is backslashes and line ends, used
 * ten times (HTML just under its 1 000 000 characters, two bytes each in JSON: 2.2 MB a post).
 */
const BODIES = {
  '"a" + "\\u0001" × 99989': 'a' + '\u0001'.repeat(99_989),
  'a link title of backslash, line feed × 49940, used 10 times':
    '[a]: /u "' + '\\\n'.repeat(49_940) + '"\n\n' + '[a] '.repeat(10),
}

export interface ListAbuseResult {
  /** The body the account's posts were accepted with. */
  body: string
  posts: number
  /** Whole responses, envelope included, and how many posts each held. */
  frontPage: { status: number; bytes: number; items: number }
  limit100: { status: number; bytes: number; items: number }
  readers: number
  /** Reads made during the figure, by status. */
  answers: Record<string, number>
  before: Memory
  peakRssMiB: number
  after: Memory
}

async function post(url: string, body: unknown, token?: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
}

/** One account's 100 heaviest posts, published; the body they were accepted with. */
async function publishHeavyPosts(baseUrl: string): Promise<string> {
  const registered = await post(`${baseUrl}/register`, {
    email: `list-abuser-${Date.now()}@example.com`,
    password: 'list-abuser-password-1234',
    name: 'List abuser',
  })
  const { accessToken } = ((await registered.json()) as { data: { accessToken: string } }).data
  for (const [name, body] of Object.entries(BODIES)) {
    const first = await post(`${baseUrl}/posts`, { title: 'Heavy 0', body, status: 'published' }, accessToken)
    await first.arrayBuffer()
    if (first.status === 400) continue
    if (!first.ok) throw new Error(`createPost: ${first.status}`)
    for (let index = 1; index < POSTS; index++) {
      const next = await post(`${baseUrl}/posts`, { title: `Heavy ${index}`, body, status: 'published' }, accessToken)
      await next.arrayBuffer()
      if (!next.ok) throw new Error(`createPost ${index}: ${next.status}`)
    }
    return name
  }
  throw new Error('every heavy body was refused')
}

async function page(url: string) {
  const response = await fetch(url)
  const bytes = Buffer.from(await response.arrayBuffer())
  const { data } = JSON.parse(bytes.toString('utf8')) as { data: unknown[] | null }
  return { status: response.status, bytes: bytes.length, items: data?.length ?? 0 }
}

export async function measureListAbuse(server: { url: string; pid: number }, seconds: number) {
  const body = await publishHeavyPosts(server.url)
  const before = await readMemory(server.pid, server.url)
  const frontPage = await page(`${server.url}/posts`)
  const limit100 = await page(`${server.url}/posts?limit=100`)
  const peak = watchPeakRss(server.pid)
  const until = Date.now() + seconds * 1000
  const answers: Record<string, number> = {}
  await Promise.all(
    Array.from({ length: READERS }, async (_, reader) => {
      for (let read = reader; Date.now() < until; read++) {
        let answer: string
        try {
          const response = await fetch(`${server.url}/posts${read % 2 === 0 ? '' : '?limit=100'}`)
          await response.arrayBuffer()
          answer = String(response.status)
        } catch (error) {
          answer = `dropped: ${(error as Error).message}`
        }
        answers[answer] = (answers[answer] ?? 0) + 1
      }
    }),
  )
  const peakRssMiB = peak.stop()
  const after = await readMemory(server.pid, server.url)
  const result: ListAbuseResult = {
    body,
    posts: POSTS,
    frontPage,
    limit100,
    readers: READERS,
    answers,
    before,
    peakRssMiB,
    after,
  }
  return result
}

/** The figure as the benchmark prints it. */
export const describeListAbuse = (result: ListAbuseResult) =>
  [
    `  list pages after one account published ${result.posts} posts of ${result.body}:`,
    `    GET /posts ${result.frontPage.status}, ${result.frontPage.bytes} bytes (${result.frontPage.items} posts); GET /posts?limit=100 ${result.limit100.status}, ${result.limit100.bytes} bytes (${result.limit100.items} posts)`,
    `    ${result.readers} anonymous readers: ${Object.entries(result.answers)
      .map(([answer, count]) => `${count}× ${answer}`)
      .join(
        ', ',
      )}; RSS before ${result.before.rssMiB} MiB, peak ${result.peakRssMiB} MiB, after ${result.after.rssMiB} MiB`,
  ].join('\n')

/** Within the budget, or one post alone (a page holds one at least, however heavy). */
const withinBudget = (page: ListAbuseResult['frontPage']) =>
  page.status === 200 && (page.bytes <= LIST_PAGE_BUDGET_BYTES + ENVELOPE_BYTES || page.items === 1)

/** The target: both pages within the budget, every read answered 200, RSS growth under 100 MiB. */
export const listAbuseMet = (result: ListAbuseResult) =>
  withinBudget(result.frontPage) &&
  withinBudget(result.limit100) &&
  Object.keys(result.answers).every((answer) => answer === '200') &&
  result.peakRssMiB - result.before.rssMiB < RSS_GROWTH_TARGET_MIB

export const LIST_ABUSE_TARGET = `list pages <= ${LIST_PAGE_BUDGET_BYTES} bytes (+ envelope) or one post alone, and RSS growth < ${RSS_GROWTH_TARGET_MIB} MiB, ${READERS} anonymous readers after ${POSTS} heavy posts`
