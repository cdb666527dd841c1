// An HTTPS client for tests of the service behind a TLS-terminating proxy: keep-alive connections
// that verify the proxy's certificate against the CA given, and leave from a chosen loopback address
// (any address of 127.0.0.0/8 reaches a server on 127.0.0.1, which sees it as the client's), so one
// machine can be several clients. Built on node:https, so no HTTP client package is needed.
import { Agent, request } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'

export interface HttpsAnswer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  text: string
  /** The body parsed as JSON (throws when it is not). */
  json(): any // eslint-disable-line @typescript-eslint/no-explicit-any -- the envelope of any operation
}

export interface HttpsRequest {
  method?: string
  headers?: Record<string, string>
  body?: Buffer | string | object
}

export interface HttpsClient {
  /** Rejects on a socket or TLS error; any HTTP status resolves. */
  send(url: string, options?: HttpsRequest): Promise<HttpsAnswer>
  close(): void
}

export function httpsClient({ ca, localAddress = '127.0.0.1' }: { ca: string; localAddress?: string }): HttpsClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 4, ca, localAddress })
  const send = (url: string, { method = 'GET', headers = {}, body }: HttpsRequest = {}) => {
    const isJson = body !== undefined && !Buffer.isBuffer(body) && typeof body !== 'string'
    const payload = isJson ? Buffer.from(JSON.stringify(body)) : body
    const allHeaders: Record<string, string> = { ...(isJson ? { 'content-type': 'application/json' } : {}), ...headers }
    if (payload !== undefined) allHeaders['content-length'] = String(Buffer.byteLength(payload))
    return new Promise<HttpsAnswer>((resolve, reject) => {
      const outgoing = request(url, { method, headers: allHeaders, agent }, (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('error', reject)
        incoming.on('end', () => {
          const bytes = Buffer.concat(chunks)
          const text = bytes.toString('utf8')
          resolve({
            status: incoming.statusCode!,
            headers: incoming.headers,
            body: bytes,
            text,
            json: () => JSON.parse(text),
          })
        })
      })
      outgoing.on('error', reject)
      outgoing.end(payload)
    })
  }
  return { send, close: () => agent.destroy() }
}
