// A webhook receiver for tests: a real node:http server on loopback that records every delivery
// (headers and body) and answers with the statuses it is told, in turn (200 once they run out).
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  /** The status this receiver answered. */
  status: number
}

/** What a delivery's body holds; `data` is the resource, compared whole by the tests. */
export interface WebhookEvent {
  type: string
  timestamp: string
  data: { id: string; [field: string]: unknown }
}

export async function startReceiver(t: Test, statuses: number[] = []) {
  const received: Received[] = []
  const answers = [...statuses]
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const status = answers.shift() ?? 200
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status })
      response.writeHead(status, { 'content-type': 'text/plain' })
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The parsed bodies received, in order. */
    events: () => received.map((delivery) => JSON.parse(delivery.body) as WebhookEvent),
  }
}
