// HTTP as bytes on a socket, for what no client library sends: broken request lines and headers,
// pipelined requests, a request that never completes.
import { once } from 'node:events'
import type { Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** Sends each of `requests` on one new connection, each after an answer to the one before, and reads until the server closes it. */
export async function exchange(port: number, ...requests: (string | Buffer)[]): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => {}) // a reset after the answer is fine: the answer is what is tested
  await once(socket, 'connect')
  for (const [index, raw] of requests.entries()) {
    if (index > 0) await once(socket, 'data')
    socket.write(raw)
  }
  await once(socket, 'close')
  return Buffer.concat(chunks).toString('latin1')
}

/**
 * The answer to an unfinished request whose time ran out. Node raises this after its
 * requestTimeout (30 s); raised here at once, as Node raises it, on a real connection.
 */
export async function timedOut(server: Server, port: number): Promise<string> {
  const accepted = once(server, 'connection') as Promise<[Socket]>
  const answer = exchange(port, 'GET /ping HTTP/1.1\r\nHost: localhost\r\n')
  const [socket] = await accepted
  server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket)
  return answer
}

/** Listens on a free port, keeping the server's side of every connection to count the bytes it read. */
export async function listenCountingBytes(app: FastifyInstance) {
  const sockets: Socket[] = []
  app.server.on('connection', (socket: Socket) => sockets.push(socket))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    bytesRead: () => sockets.reduce((sum, socket) => sum + socket.bytesRead, 0),
  }
}
