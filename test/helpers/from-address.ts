// A fetch whose connections leave from a given local address, so a test on loopback can be
// several clients at once: any address in 127.0.0.0/8 reaches a server listening on 127.0.0.1,
// and the server sees it as the client's address (what the per-address limits count by).
// Built on node:http (localAddress), so no HTTP client package is needed; wrap it in
// app.contractFetch() to have every response checked against the spec.
import { request as httpRequest } from 'node:http'

export function fetchFrom(localAddress: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer())
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest(
        request.url,
        { method: request.method, headers: Object.fromEntries(request.headers), localAddress, agent: false },
        (incoming) => {
          const chunks: Buffer[] = []
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
          incoming.on('end', () => {
            const headers = new Headers()
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
                headers.append(name, one)
            }
            const status = incoming.statusCode ?? 500
            resolve(new Response([204, 205, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers }))
          })
          incoming.on('error', reject)
        },
      )
      outgoing.on('error', reject)
      outgoing.end(body)
    })
  }
}
