// Two answers Node's HTTP server gives on its own, bare, before Fastify sees the request: 400 with
// an empty body to an HTTP/1.1 request without Host, and 417 to an Expect it does not know.
// Node's Host check is off (`http.requireHostHeader: false` in fastifyOptions): the request is
// refused here, in the envelope. An unknown expectation is ignored: 100-continue is the only one
// HTTP defines (RFC 9110 §10.1.1, where a server MAY answer others 417), so no client loses by it,
// and the contract lists no refusal that no real client meets.
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../errors/api-error.ts'

export function registerRequestHead(app: FastifyInstance) {
  // Node emits this instead of 'request' for an Expect other than 100-continue, answering 417 when
  // nobody listens: handed on as the request it is.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response))
  app.addHook('onRequest', (request, _reply, done) => {
    // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host (1.0 had none).
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(new ApiError(400, 'MALFORMED_REQUEST', 'An HTTP/1.1 request must have a Host header.'))
      return
    }
    done()
  })
}
