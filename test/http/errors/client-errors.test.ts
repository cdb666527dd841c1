// Requests Node's HTTP parser refuses before Fastify sees them (a request line or headers over
// 16 KiB, bytes that are not HTTP) are answered in the envelope too, with a documented code, the
// request id and the contract version, then the connection is closed; on a pipelined connection,
// after the answers to the requests before them. So are the requests Node itself would answer
// bare (no Host, an unknown Expect).
import t, { type Test } from 'tap'
import { listOperations, loadSpec } from '../../../src/spec.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { makeContractChecker, type SeenResponse } from '../../helpers/contract.ts'
import { createPost } from '../../helpers/posts.ts'
import { exchange, timedOut } from '../../helpers/raw-http.ts'

const documentedCodes = new Set(loadSpec().components.schemas.ErrorCode?.enum)

/** Writes `raw` (several requests, pipelined) on a new connection at once and reads until the server closes it. */
async function pipeline(port: number, raw: string): Promise<string[]> {
  const answer = await exchange(port, raw)
  // Each answer starts with its status line; none of these bodies holds one.
  return answer.split(/(?=HTTP\/1\.1 \d{3} )/)
}

/** A raw answer as the contract checker sees one, for `method` and `url`. */
function seen(method: string, url: string, answer: string): SeenResponse {
  const [head = '', body = ''] = answer.split('\r\n\r\n', 2)
  const [statusLine = '', ...fields] = head.split('\r\n')
  const headers = Object.fromEntries(
    fields.map((field) => [
      field.slice(0, field.indexOf(':')).toLowerCase(),
      field.slice(field.indexOf(':') + 1).trim(),
    ]),
  )
  return { method, url, status: Number(statusLine.split(' ')[1]), headers, body: Buffer.from(body, 'latin1') }
}

function assertEnvelope(t: Test, answer: string, status: number, code: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n', 2)
  t.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `status ${status}`)
  t.match(head, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i)
  t.match(head, /\r\nconnection: close(\r\n|$)/i)
  t.match(head, new RegExp(`\\r\\napi-version: ${loadSpec().info.version.replaceAll('.', '\\.')}\\r\\n`, 'i'))
  const length = /\r\ncontent-length: (\d+)/i.exec(head)
  t.equal(Number(length?.[1]), Buffer.byteLength(body, 'latin1'), 'Content-Length is the body')
  const parsed = JSON.parse(body) as {
    data: unknown
    error: { code: string; message: string; details: unknown[] }
    meta: { requestId: string }
  }
  t.same(Object.keys(parsed).sort(), ['data', 'error', 'meta'])
  t.equal(parsed.data, null)
  t.equal(parsed.error.code, code)
  t.ok(documentedCodes.has(code), `${code} is documented`)
  t.same(parsed.error.details, [])
  t.equal(
    /\r\nx-request-id: ([^\r]+)/i.exec(head)?.[1],
    parsed.meta.requestId,
    'the request id, in the header and the body',
  )
}

t.test('errors of the HTTP parser come out in the envelope', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  t.test('a header over the limit → 431 HEADERS_TOO_LARGE', async (t) => {
    const answer = await exchange(port, `GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    assertEnvelope(t, answer, 431, 'HEADERS_TOO_LARGE')
  })

  t.test('a URL over the limit → 431 HEADERS_TOO_LARGE', async (t) => {
    const answer = await exchange(port, `GET /posts?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    assertEnvelope(t, answer, 431, 'HEADERS_TOO_LARGE')
  })

  t.test('bytes that are not HTTP → 400 MALFORMED_REQUEST', async (t) => {
    assertEnvelope(t, await exchange(port, 'HELLO\r\n\r\n'), 400, 'MALFORMED_REQUEST')
    assertEnvelope(
      t,
      await exchange(port, 'GET /ping HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
      400,
      'MALFORMED_REQUEST',
    )
    assertEnvelope(
      t,
      await exchange(port, 'GET /ping HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'),
      400,
      'MALFORMED_REQUEST',
    )
    // Chunk extensions over Node's 16 KiB: broken framing, on any operation (a GET may carry a body too).
    const extensions = `1;a=${'b'.repeat(20_000)}\r\n{\r\n`
    assertEnvelope(
      t,
      await exchange(
        port,
        `POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${extensions}`,
      ),
      400,
      'MALFORMED_REQUEST',
    )
    assertEnvelope(
      t,
      await exchange(port, `GET /ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${extensions}`),
      400,
      'MALFORMED_REQUEST',
    )
  })

  // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused 400; HTTP/1.0 had no such header.
  t.test('an HTTP/1.1 request without Host → 400 MALFORMED_REQUEST; an HTTP/1.0 one is served', async (t) => {
    assertEnvelope(t, await exchange(port, 'GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'MALFORMED_REQUEST')
    t.match(await exchange(port, 'GET /ping HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /)
  })

  // The spec: refused "keeping the connection". The refusal comes before Node has marked the request
  // complete, which for a request declaring a body means unread bytes; this one declares none.
  t.test('a request without Host is refused and its connection kept: the next request is served', async (t) => {
    const answer = await exchange(
      port,
      'GET /ping HTTP/1.1\r\n\r\n',
      'GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    )
    const [refusal = '', served = ''] = answer.split(/(?=HTTP\/1\.1 \d{3} )/)
    t.match(refusal, /^HTTP\/1\.1 400 .*"code":"MALFORMED_REQUEST"/s, 'the first refused')
    t.notMatch(refusal, /\r\nconnection: close\r\n/i, 'the refusal does not close the connection')
    t.match(served, /^HTTP\/1\.1 200 /, 'the second, on the same connection, served')
  })

  // RFC 9110 §10.1.1: 100-continue is the only expectation there is; a server MAY refuse others
  // with 417. Ours ignores them, so a client never meets a refusal the contract would have to list.
  t.test('an Expect other than 100-continue is ignored: the request is served', async (t) => {
    const answer = await exchange(port, 'GET /ping HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n')
    t.match(answer, /^HTTP\/1\.1 200 .*\r\n\r\n\{"data":\{/s)
  })

  t.test('after an answered request on the same connection: the refusal still comes as an answer', async (t) => {
    const answer = await exchange(
      port,
      'GET /ping HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    const second = answer.slice(answer.indexOf('HTTP/1.1', 1))
    t.match(answer, /^HTTP\/1\.1 200 /, 'the first request answered')
    assertEnvelope(t, second, 431, 'HEADERS_TOO_LARGE')
  })

  t.test('a request not received in time → 408 REQUEST_TIMEOUT', async (t) => {
    assertEnvelope(t, await timedOut(app.server, port), 408, 'REQUEST_TIMEOUT')
  })

  // The parser refuses before any operation runs, so any operation's client may meet these answers.
  t.test('every operation lists these answers, and they keep its contract', async (t) => {
    const answers = {
      'no Host (400)': await exchange(port, 'GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n'),
      'not HTTP (400)': await exchange(port, 'HELLO\r\n\r\n'),
      'not in time (408)': await timedOut(app.server, port),
      'header too large (431)': await exchange(
        port,
        `GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    }
    const checker = makeContractChecker()
    for (const { method, path, operation } of listOperations()) {
      const url = path.replace(/\{[^}]+\}/g, '0192f7c4-5a2b-7c3d-8e4f-123456789abc')
      for (const [name, answer] of Object.entries(answers))
        t.same(checker.checkResponse(seen(method, url, answer)), [], `${operation.operationId}: ${name}`)
    }
  })

  t.test('fetch receives the 431 as an answer in the envelope', async (t) => {
    const response = await fetch(`http://127.0.0.1:${port}/ping`, { headers: { 'x-big': 'a'.repeat(20_000) } })
    t.equal(response.status, 431)
    t.equal(response.headers.get('api-version'), loadSpec().info.version)
    t.match(await response.json(), { data: null, error: { code: 'HEADERS_TOO_LARGE' }, meta: { requestId: String } })
  })

  // HTTP/1.1 answers are matched to requests by their order: a refusal must not take the place of
  // the answer to a request sent before it on the same connection, whose handler may still run.
  t.test(
    'pipelined after a request still being served: that request is answered first, then the refusal',
    async (t) => {
      const author = await registerUser(app, 'pipeline')
      const post = await createPost(app, author)
      const answers = await pipeline(
        port,
        `DELETE /posts/${post.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${author.accessToken}\r\n\r\nHELLO\r\n\r\n`,
      )
      t.equal(answers.length, 2, 'two answers for two requests')
      t.match(answers[0], /^HTTP\/1\.1 204 /, 'the DELETE answered')
      assertEnvelope(t, answers[1] ?? '', 400, 'MALFORMED_REQUEST')
      t.equal(
        (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).statusCode,
        404,
        'and carried out',
      )

      const big = await pipeline(
        port,
        `GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      )
      t.equal(big.length, 2, 'two answers for two requests')
      t.match(big[0], /^HTTP\/1\.1 200 .*\r\n\r\n\{"data":\{/s, 'the ping answered')
      assertEnvelope(t, big[1] ?? '', 431, 'HEADERS_TOO_LARGE')

      const three = await pipeline(
        port,
        'GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\nHELLO\r\n\r\n',
      )
      t.same(
        three.map((answer) => answer.slice(0, 12)),
        ['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 400'],
        'every answer, in order',
      )
      assertEnvelope(t, three[2] ?? '', 400, 'MALFORMED_REQUEST')

      // Broken in its body: that request, already handed to its handler, is the one refused.
      const chunked =
        'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n'
      assertEnvelope(t, (await pipeline(port, chunked)).join(''), 400, 'MALFORMED_REQUEST')
      const afterPing = await pipeline(port, `GET /ping HTTP/1.1\r\nHost: x\r\n\r\n${chunked}`)
      t.same(
        afterPing.map((answer) => answer.slice(0, 12)),
        ['HTTP/1.1 200', 'HTTP/1.1 400'],
        'the ping, then the refusal',
      )
      assertEnvelope(t, afterPing[1] ?? '', 400, 'MALFORMED_REQUEST')
    },
  )
})
