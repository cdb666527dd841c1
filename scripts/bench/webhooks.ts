// Webhook figures: how long an event takes from its change to a receiver (p50, p99), and cached
// getPost's p99 while a burst of events is made and delivered, against its p99 idle. The receiver
// is a node:http server in this process on loopback (the server runs with
// WEBHOOK_ALLOW_PRIVATE_NETWORKS=true); it answers 204 and notes each event's delay from the
// `timestamp` the server gave it when the change was written. The same burst of writes is also
// made once with the endpoint paused, so no delivery is queued: what the writes alone cost the
// reads, apart from what delivering their events adds; and once more with no reads at all, for the
// server's CPU time per write.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Figure } from './measure.ts'

export interface WebhookFigures {
  latency: { events: number; p50Ms: number; p99Ms: number; maxMs: number }
  burst: {
    events: number
    /** From the first write of the burst to its last event's arrival at the receiver. */
    deliveredInMs: number
    idle: Figure
    /** The same writes with no reads and the endpoint paused: the server's CPU time (all threads) per write. */
    writes: { perSecond: number; serverCpuMsPerWrite: number }
    /** Reads during the same writes with the endpoint paused: no event is queued or delivered. */
    writesOnly: Figure
    during: Figure
  }
}

interface Clients {
  serverUrl: string
  /** The server's process, whose CPU time the writes are measured by (Linux: /proc). */
  serverPid: number
  adminToken: string
  userToken: string
  /** The post the events' comments go to: not the one whose reads are measured. */
  commentPostId: string
  /** Measures reads of the cached post until `until` settles, or for the bench's duration. */
  measureReads(name: string, until?: Promise<unknown>): Promise<Figure>
}

const LATENCY_EVENTS = 200
/** Between two changes of the latency run, so each event is delivered alone as it would be. */
const LATENCY_SPACING_MS = 20
const BURST_EVENTS = 1000
const BURST_WRITERS = 10

/** CPU time of a process so far (user and system, all threads), in ms: /proc counts in 1/100 s. */
function cpuMs(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const percentile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!

async function startReceiver() {
  const delays: number[] = []
  let waiting: { count: number; resolve: () => void } | undefined
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const arrived = Date.now()
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }
      delays.push(arrived - Date.parse(event.timestamp))
      response.writeHead(204).end()
      if (waiting && delays.length >= waiting.count) waiting.resolve()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-hook`,
    delays,
    /** Resolves once `count` events arrived in all; rejects after `deadlineMs`. */
    until(count: number, deadlineMs: number) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${delays.length} of ${count} webhook events arrived`)),
          deadlineMs,
        )
        waiting = {
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        }
        if (delays.length >= count) waiting.resolve()
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function post(url: string, token: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  })
  if (response.status !== 201) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: { id: string } }).data
}

export async function measureWebhooks(clients: Clients): Promise<WebhookFigures> {
  const receiver = await startReceiver()
  const { serverUrl, adminToken, userToken, commentPostId } = clients
  const endpoint = await post(`${serverUrl}/webhooks`, adminToken, {
    url: receiver.url,
    events: ['comment.created'],
    description: 'npm run bench',
  })
  const comment = (index: number) =>
    post(`${serverUrl}/posts/${commentPostId}/comments`, userToken, { body: `Bench comment ${index}` })
  try {
    for (let index = 0; index < LATENCY_EVENTS; index++) {
      await comment(index)
      await new Promise((resolve) => setTimeout(resolve, LATENCY_SPACING_MS))
    }
    await receiver.until(LATENCY_EVENTS, 60_000)
    const sorted = [...receiver.delays].sort((a, b) => a - b)
    const latency = {
      events: sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1)!,
    }

    const idle = await clients.measureReads('getPost, cached, idle')
    const setActive = async (active: boolean) => {
      const response = await fetch(`${serverUrl}/webhooks/${endpoint.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ active }),
      })
      if (response.status !== 200) throw new Error(`PATCH /webhooks: ${response.status} ${await response.text()}`)
    }
    /** BURST_EVENTS comments by BURST_WRITERS writers at once. */
    const burstOfComments = async (first: number) => {
      let next = 0
      const writer = async () => {
        while (next < BURST_EVENTS) await comment(first + next++)
      }
      await Promise.all(Array.from({ length: BURST_WRITERS }, writer))
    }
    await setActive(false)
    const cpuBefore = cpuMs(clients.serverPid)
    const writesStarted = Date.now()
    await burstOfComments(LATENCY_EVENTS + 2 * BURST_EVENTS)
    const writes = {
      perSecond: Math.round((BURST_EVENTS * 1000) / (Date.now() - writesStarted)),
      serverCpuMsPerWrite: Math.round(((cpuMs(clients.serverPid) - cpuBefore) / BURST_EVENTS) * 100) / 100,
    }
    // Reads over the burst itself: from its first write to its last write (paused), or to its
    // last event's arrival (delivered).
    const writesDone = burstOfComments(LATENCY_EVENTS + BURST_EVENTS)
    const [writesOnly] = await Promise.all([
      clients.measureReads(`getPost, cached, ${BURST_EVENTS} comments, paused`, writesDone),
      writesDone,
    ])
    await setActive(true)
    const started = Date.now()
    const delivered = (async () => {
      await burstOfComments(LATENCY_EVENTS)
      await receiver.until(LATENCY_EVENTS + BURST_EVENTS, 120_000)
      return Date.now() - started
    })()
    const [during, deliveredInMs] = await Promise.all([
      clients.measureReads(`getPost, cached, ${BURST_EVENTS} webhook events`, delivered),
      delivered,
    ])
    return { latency, burst: { events: BURST_EVENTS, deliveredInMs, idle, writes, writesOnly, during } }
  } finally {
    await fetch(`${serverUrl}/webhooks/${endpoint.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${adminToken}` },
    })
    await receiver.close()
  }
}
