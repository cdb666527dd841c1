// A TCP proxy in front of the test S3 server that can fail the way object stores fail: `pass`
// forwards both ways; `blackhole` forwards requests but drops every answer (the store took the
// bytes, the answer never came: the client times out); `refuse` drops connections at once.
import { connect, createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export type ProxyMode = 'pass' | 'blackhole' | 'refuse'

export async function startS3Proxy(targetPort: number) {
  let mode: ProxyMode = 'pass'
  let connections = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    connections++
    if (mode === 'refuse') return client.destroy()
    const upstream = connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {})
    }
    client.pipe(upstream)
    if (mode === 'pass') upstream.pipe(client)
    else upstream.resume()
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  server.unref()
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Connections clients opened to the store so far, whatever the mode. */
    connections: () => connections,
    /** Changes how new connections are treated; connections already open are dropped. */
    set(next: ProxyMode) {
      mode = next
      for (const socket of sockets) socket.destroy()
    },
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
