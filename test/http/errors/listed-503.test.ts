// An operation whose description promises `503 SERVICE_UNAVAILABLE` lists 503 among its answers,
// with the envelope, its example and Retry-After, as the other operations that can give it do:
// createPost and updatePost said it (a full render queue, since gone) without listing it, and give
// it still while the database cannot be reached. The 503 is shown on a raw socket, given by a
// handler that throws what an unreachable database makes (the database itself is stopped for real
// in test/db/unavailable.test.ts).
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ApiError, RETRY_AFTER_SECONDS } from '../../../src/errors/api-error.ts'
import { listOperations, loadSpec } from '../../../src/spec.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { exchange } from '../../helpers/raw-http.ts'

const databaseDown = async () => {
  throw new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'The service cannot serve requests that need its database.',
    [{ path: 'database', message: 'The database cannot be reached.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )
}

t.test('every operation whose description names 503 SERVICE_UNAVAILABLE lists 503', async (t) => {
  const promising = listOperations().filter(({ operation }) =>
    /503 SERVICE_UNAVAILABLE|`503`/.test(String(operation.description ?? '')),
  )
  const writes = listOperations().filter(({ operation }) =>
    ['createPost', 'updatePost'].includes(operation.operationId),
  )
  t.equal(writes.length, 2, 'createPost and updatePost are checked too')
  for (const { operation } of [...promising, ...writes])
    t.same(
      operation.responses['503'],
      { $ref: '#/components/responses/ServiceUnavailable' },
      `${operation.operationId} lists 503`,
    )
  const responses = loadSpec().components.responses as Record<string, unknown>
  const listed = responses.ServiceUnavailable as {
    headers: Record<string, unknown>
    content: Record<string, { schema: unknown; examples: Record<string, unknown> }>
  }
  t.ok(listed.headers['Retry-After'], 'with Retry-After')
  t.same(listed.content['application/json']?.schema, { $ref: '#/components/schemas/ErrorEnvelope' }, 'the envelope')
  t.ok(listed.content['application/json']?.examples.databaseDown, 'and its example')
})

t.test('createPost and updatePost give it on a raw socket, in the envelope the contract lists', async (t) => {
  const app = await build(t, {}, { handlers: { createPost: databaseDown, updatePost: databaseDown } })
  const author = await registerUser(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const requests = {
    createPost: ['POST', '/posts', { title: 'A title', body: 'A body.' }],
    updatePost: ['PATCH', `/posts/${randomUUID()}`, { title: 'Another title' }],
  } as const
  for (const [operationId, [method, path, payload]] of Object.entries(requests)) {
    const body = JSON.stringify(payload)
    const answer = await exchange(
      port,
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${author.accessToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
    const [head = '', text = ''] = answer.split('\r\n\r\n', 2)
    t.match(head, /^HTTP\/1\.1 503 /, `${operationId}: 503`)
    t.match(head, new RegExp(`\\r\\nretry-after: ${RETRY_AFTER_SECONDS}\\r\\n`, 'i'), `${operationId}: Retry-After`)
    t.match(JSON.parse(text), { data: null, error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'database' }] } })
  }
})

t.test('a 503 is logged as the refusal it is: at warn, with its code and details, without a stack', async (t) => {
  const lines: Record<string, unknown>[] = []
  const app = await build(
    t,
    { LOG_LEVEL: 'warn' },
    { handlers: { createPost: databaseDown }, logDestination: { write: (line) => void lines.push(JSON.parse(line)) } },
  )
  const user = await registerUser(app, 'refusal-log')
  const answer = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: user.auth,
    payload: { title: 'Refused', body: 'Refused.' },
  })
  t.equal(answer.statusCode, 503)
  const logged = lines.filter((line) => line.msg === 'The service cannot serve requests that need its database.')
  t.match(logged, [{ level: 40, code: 'SERVICE_UNAVAILABLE', details: [{ path: 'database' }] }], 'one line, at warn')
  t.notOk(
    logged.some((line) => 'err' in line),
    'no stack: nothing went wrong in the code',
  )
})
