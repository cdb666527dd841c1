// Requests Node's HTTP parser refuses before Fastify sees them: a request line and headers over
// Node's limit (16 KiB), bytes that are not HTTP, a request not received in time. There is no
// request or reply object, so the answer is written on the socket by hand, in the envelope, with
// the headers every answer has; then the connection is closed, as the stream can no longer be read.
//
// HTTP/1.1 answers are matched to requests by their order on the connection. Requests received
// whole before the broken bytes (pipelined) may still be in their handlers: their answers are
// written first, and the refusal after them, never in their place.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { ErrorCode } from '../../errors/api-error.ts'
import { API_VERSION_HEADER, apiVersion } from '../headers/api-version.ts'

/** Node's parser errors by code (llhttp's HPE_* and Node's own), as Node itself answers them. */
const ANSWERS: Record<string, [number, ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'The request line and headers are larger than allowed.'],
  // Node says 413; broken framing to us, as a body's chunk extensions say nothing an operation
  // reads, so that every operation, GETs included, is refused with one documented answer.
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    400,
    'MALFORMED_REQUEST',
    'The chunk extensions of the body are larger than allowed.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request was not received in time.'],
}
const MALFORMED: [number, ErrorCode, string] = [400, 'MALFORMED_REQUEST', 'The request is not valid HTTP.']

interface ParserError extends Error {
  code?: string
}

/**
 * Per connection, kept on the socket itself (a property is cheaper than a WeakMap on every
 * request): its answers, pruned of those written whole or closed as each request comes (so a few
 * at most), the latest last.
 */
const TRACKED = Symbol('answers')
type TrackedSocket = Socket & { [TRACKED]?: ServerResponse[] }
/** Connections whose refusal is under way: the parser reports its error again for every later chunk. */
const refusing = new WeakSet<Socket>()

/** An answer that has emitted 'finish' (written whole) or 'close'. */
const settledAlready = (response: ServerResponse) => response.writableFinished || response.destroyed

/** Follows the answers of each connection, so a refusal can wait for the ones before it. */
export function trackAnswers(server: Server) {
  // First of the 'request' listeners, before Fastify's can answer. No listener per answer: whether
  // one is still open is read from the answer itself when a refusal needs it.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket: TrackedSocket = request.socket
    const tracked = socket[TRACKED]
    if (tracked === undefined) {
      socket[TRACKED] = [response]
      return
    }
    // Those settled since the last request go (most often the one before it), in place. The new
    // answer takes the first free slot: the common case (the one before it settled) writes one
    // slot and leaves the array's length alone, whose change costs more than the rest here.
    let kept = 0
    for (let index = 0; index < tracked.length; index++)
      if (!settledAlready(tracked[index]!)) tracked[kept++] = tracked[index]!
    if (kept === tracked.length) tracked.push(response)
    else {
      tracked[kept] = response
      if (kept + 1 < tracked.length) tracked.length = kept + 1
    }
  })
}

/** The server's `clientError` handler (Fastify's clientErrorHandler option), bound to the app. */
export function handleClientError(this: FastifyInstance, error: ParserError, socket: Socket) {
  // Reset by the client: nobody is left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed || refusing.has(socket)) return
  refusing.add(socket)
  const [status, code, message] = ANSWERS[error.code ?? ''] ?? MALFORMED
  const requestId = randomUUID()
  // A passing client's fault, not ours: logged with the id the client was given, without the bytes.
  this.log.info({ reqId: requestId, code: error.code, status }, 'request refused by the HTTP parser')
  const body = JSON.stringify({ data: null, error: { code, message, details: [] }, meta: { requestId } })
  const answer =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    `${API_VERSION_HEADER}: ${apiVersion()}\r\n` +
    'connection: close\r\n\r\n' +
    body
  refuseInTurn(socket, answer).catch((failure: unknown) => {
    this.log.warn({ err: failure }, 'refusing a request the HTTP parser rejected failed')
    socket.destroy()
  })
}

async function refuseInTurn(socket: Socket, answer: string) {
  const tracked = (socket as TrackedSocket)[TRACKED] ?? []
  const open = tracked.filter((response) => !settledAlready(response))
  // The request whose body was being read when the parser failed (or timed out) is the one refused.
  const last = tracked.at(-1)
  const broken = last !== undefined && !last.req.complete ? last : undefined
  await Promise.all(open.filter((response) => response !== broken).map(settled))
  // The refused request may have been answered already (an early refusal of an upload): that
  // answer stands, alone.
  if (broken?.headersSent) {
    if (!settledAlready(broken)) await settled(broken)
  } else if (socket.writable) {
    socket.write(answer)
  }
  // Closed once written out: the rest of the stream cannot be read.
  if (socket.writable) socket.end()
  if (socket.writableFinished) socket.destroy()
  else socket.once('finish', () => socket.destroy())
}

const settled = (response: ServerResponse) =>
  new Promise<void>((resolve) => {
    response.once('finish', resolve).once('close', resolve)
  })
