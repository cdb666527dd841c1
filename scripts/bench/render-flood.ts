// The benchmark's render-flood figures (issue 29, point 2): an innocent user's one-line createPost,
// one at a time, idle and then while accounts flood the renderer with one of the costliest bodies
// found, each keeping as many in flight as the renderer lets one user have: the issue's
// 100 000-character Markdown table (`"a|b\n-|-\n" + "a|b\n" × 24 997`: 200 000 tokens, 100 000
// tags), and a table of 4 136 characters that is as costly (1 000 columns, which markdown-it fills
// out on each of its 66 rows). Medians of a few samples, since each sample is one write; the
// flood's answers are counted.

/** The issue's measurement: three accounts, eight drafts each in flight. */
const FLOODERS = 3
const IN_FLIGHT_EACH = 8
/** The bodies each flood sends, by name. */
export const FLOOD_BODIES = {
  'tables of 100 000 characters': 'a|b\n-|-\n' + 'a|b\n'.repeat(24_997),
  'tables of 4 136 characters, 1 000 columns wide':
    '|' + 'a|'.repeat(1000) + '\n|' + '-|'.repeat(1000) + '\n' + 'x\n'.repeat(66),
}
export type FloodBody = keyof typeof FLOOD_BODIES
/** A flood request or a sample unanswered after this is counted as timed out. */
const TIMEOUT_MS = 300_000

export interface Latency {
  samples: number[]
  p50Ms: number
  maxMs: number
}

export interface RenderFloodResult {
  body: FloodBody
  idle: Latency
  during: Latency
  /** during.p50Ms / idle.p50Ms: the target is at most 2. */
  ratio: number
  /** Answers the flooders got, by status. */
  floodAnswers: Record<string, number>
}

async function register(baseUrl: string, label: string) {
  const response = await fetch(`${baseUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${label}-${Date.now()}@example.com`,
      password: `${label}-password-1234`,
      name: label,
    }),
  })
  if (!response.ok) throw new Error(`register ${label}: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: { accessToken: string } }).data.accessToken
}

/** One createPost; what came back ("201", "429", "timed out", "dropped: …"). */
async function createPost(baseUrl: string, token: string, title: string, body: string): Promise<string> {
  try {
    const response = await fetch(`${baseUrl}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title, body }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    await response.arrayBuffer()
    return String(response.status)
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'timed out' : `dropped: ${(error as Error).message}`
  }
}

async function latencies(baseUrl: string, token: string, samples: number): Promise<Latency> {
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    const start = performance.now()
    const answer = await createPost(baseUrl, token, `Innocent ${i}`, 'A one-line post.')
    if (answer !== '201') console.warn(`the innocent createPost got ${answer}`)
    times.push(Math.round(performance.now() - start))
  }
  const sorted = [...times].sort((a, b) => a - b)
  return { samples: times, p50Ms: sorted[Math.floor((sorted.length - 1) / 2)]!, maxMs: sorted.at(-1)! }
}

export async function measureRenderFlood(baseUrl: string, body: FloodBody, samples = 7): Promise<RenderFloodResult> {
  const innocent = await register(baseUrl, 'innocent')
  const flooders = await Promise.all(Array.from({ length: FLOODERS }, (_, i) => register(baseUrl, `flooder${i}`)))
  // One write first, so that both figures find the renderer's threads started.
  await latencies(baseUrl, innocent, 1)
  const idle = await latencies(baseUrl, innocent, samples)

  let flooding = true
  const floodAnswers: Record<string, number> = {}
  const loops = flooders.flatMap((token) =>
    Array.from({ length: IN_FLIGHT_EACH }, async () => {
      while (flooding) {
        const answer = await createPost(baseUrl, token, 'Table', FLOOD_BODIES[body])
        floodAnswers[answer] = (floodAnswers[answer] ?? 0) + 1
      }
    }),
  )
  // Every flood body sent and queued before the first sample.
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const during = await latencies(baseUrl, innocent, samples)
  flooding = false
  await Promise.all(loops)
  return { body, idle, during, ratio: Math.round((100 * during.p50Ms) / idle.p50Ms) / 100, floodAnswers }
}

export const formatRenderFlood = (result: RenderFloodResult) =>
  [
    `createPost, one line, idle:              p50 ${result.idle.p50Ms} ms, max ${result.idle.maxMs} ms (${result.idle.samples.join(', ')})`,
    `createPost, one line, during the flood:  p50 ${result.during.p50Ms} ms, max ${result.during.maxMs} ms (${result.during.samples.join(', ')}); ${result.ratio} x idle`,
    `  flood (${FLOODERS} accounts × ${IN_FLIGHT_EACH} ${result.body} in flight): ${Object.entries(result.floodAnswers)
      .map(([answer, count]) => `${count}× ${answer}`)
      .join(', ')}`,
  ].join('\n')
