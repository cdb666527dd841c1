// The admin operations on webhook endpoints: admins only, the secret shown once, paging, 404s,
// and every bound (URL length, events, description, number of endpoints).
import t, { type Test } from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createWebhook } from '../helpers/webhooks.ts'
import { WEBHOOK_MAX_ENDPOINTS } from '../../src/webhooks/webhooks.ts'

const URL_OK = 'https://hooks.example.org/blog'
// Names resolve through this map only: no test depends on the machine's DNS.
const resolve = async (host: string) => {
  if (host === 'hooks.example.org') return ['93.184.216.34']
  throw new Error(`${host} does not resolve`)
}

async function app(t: Test, label: string) {
  const env: Record<string, string> = usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, label) } : {}
  return build(t, env, { webhooks: { resolve } })
}

t.test('admins only: 401 anonymous, 403 for a user, on all five operations', async (t) => {
  const server = await app(t, 'webhook_admin_only')
  const [user, admin] = [await registerUser(server), await registerAdmin(server)]
  const hook = await createWebhook(server, admin, { url: URL_OK, events: ['post.published'] })
  const operations = [
    { method: 'GET', url: '/webhooks' },
    { method: 'POST', url: '/webhooks', payload: { url: URL_OK, events: ['post.published'] } },
    { method: 'PATCH', url: `/webhooks/${hook.id}`, payload: { active: false } },
    { method: 'DELETE', url: `/webhooks/${hook.id}` },
    { method: 'GET', url: `/webhooks/${hook.id}/deliveries` },
  ] as const
  for (const operation of operations) {
    const anonymous = await server.inject(operation)
    t.equal(anonymous.statusCode, 401, `${operation.method} ${operation.url} anonymous`)
    t.equal(anonymous.json().error.code, 'UNAUTHENTICATED')
    const forbidden = await server.inject({ ...operation, headers: user.auth })
    t.equal(forbidden.statusCode, 403, `${operation.method} ${operation.url} as a user`)
    t.equal(forbidden.json().error.code, 'FORBIDDEN')
  }
  const list = await server.inject({ method: 'GET', url: '/webhooks', headers: admin.auth })
  t.match(list.json().data, [{ id: hook.id, active: true }], 'nothing was changed by the refused calls')
})

t.test('create shows the secret once; list, update and delete; 404 for an unknown endpoint', async (t) => {
  const server = await app(t, 'webhook_crud')
  const admin = await registerAdmin(server)
  const created = await server.inject({
    method: 'POST',
    url: '/webhooks',
    headers: admin.auth,
    payload: { url: URL_OK, events: ['post.published', 'user.registered'], description: 'Search sync' },
  })
  t.equal(created.statusCode, 201)
  const hook = created.json().data
  t.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ and the base64 of 32 bytes')
  t.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 32)
  const stored = await server.services.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } })
  t.notOk(stored.secretSealed.includes(hook.secret.slice(6)), 'the secret is not stored as it is')
  const second = await createWebhook(server, admin, { url: URL_OK, events: ['post.deleted'] })
  t.not(second.secret, hook.secret, 'each endpoint has a secret of its own')

  const page1 = (await server.inject({ method: 'GET', url: '/webhooks?limit=1', headers: admin.auth })).json()
  t.match(page1.data, [{ id: hook.id, description: 'Search sync' }])
  t.notOk('secret' in page1.data[0], 'never listed with its secret')
  const page2 = (
    await server.inject({
      method: 'GET',
      url: `/webhooks?limit=1&cursor=${page1.meta.page.nextCursor}`,
      headers: admin.auth,
    })
  ).json()
  t.match(page2, { data: [{ id: second.id, description: '' }], meta: { page: { nextCursor: null } } })

  const updated = await server.inject({
    method: 'PATCH',
    url: `/webhooks/${hook.id}`,
    headers: admin.auth,
    payload: { events: ['comment.created'], url: 'https://hooks.example.org/other', active: false },
  })
  t.match(updated.json().data, { events: ['comment.created'], url: 'https://hooks.example.org/other', active: false })
  t.notOk('secret' in updated.json().data)

  const unknown = '0192f7e1-4c5d-7e6f-8a7b-000000000000'
  for (const request of [
    { method: 'PATCH', url: `/webhooks/${unknown}`, payload: { active: true } },
    { method: 'PATCH', url: `/webhooks/${unknown}`, payload: { url: 'https://10.0.0.1/' } },
    { method: 'DELETE', url: `/webhooks/${unknown}` },
    { method: 'GET', url: `/webhooks/${unknown}/deliveries` },
  ] as const) {
    const answer = await server.inject({ ...request, headers: admin.auth })
    t.equal(answer.statusCode, 404, `${request.method} ${request.url}`)
    t.equal(answer.json().error.code, 'WEBHOOK_NOT_FOUND')
  }
  t.equal((await server.inject({ method: 'DELETE', url: `/webhooks/${hook.id}`, headers: admin.auth })).statusCode, 204)
  t.equal((await server.inject({ method: 'DELETE', url: `/webhooks/${hook.id}`, headers: admin.auth })).statusCode, 404)
})

t.test('bounds: URL length, events, description, and the number of endpoints', async (t) => {
  const server = await app(t, 'webhook_bounds')
  const admin = await registerAdmin(server)
  const create = (payload: Record<string, unknown>) =>
    server.inject({ method: 'POST', url: '/webhooks', headers: admin.auth, payload })
  const refused = async (payload: Record<string, unknown>, path: string) => {
    const answer = await create(payload)
    t.equal(answer.statusCode, 400, path)
    t.match(answer.json().error, { code: 'VALIDATION_FAILED', details: [{ path }] })
  }
  const longUrl = `https://hooks.example.org/${'a'.repeat(2048 - 'https://hooks.example.org/'.length)}`
  t.equal((await create({ url: longUrl, events: ['post.updated'] })).statusCode, 201, 'a URL of 2048 characters')
  await refused({ url: `${longUrl}a`, events: ['post.updated'] }, '/body/url')
  await refused({ url: URL_OK, events: [] }, '/body/events')
  await refused({ url: URL_OK, events: ['post.updated', 'post.updated'] }, '/body/events')
  await refused({ url: URL_OK, events: ['post.created'] }, '/body/events/0')
  await refused({ url: URL_OK, events: ['post.updated'], description: 'd'.repeat(501) }, '/body/description')
  t.equal((await create({ url: URL_OK, events: ['post.updated'], description: 'd'.repeat(500) })).statusCode, 201)
  for (let index = 2; index < WEBHOOK_MAX_ENDPOINTS; index++)
    t.equal((await create({ url: URL_OK, events: ['post.updated'] })).statusCode, 201)
  const past = await create({ url: URL_OK, events: ['post.updated'] })
  t.equal(past.statusCode, 409, `endpoint ${WEBHOOK_MAX_ENDPOINTS + 1} is refused`)
  t.same(past.json().error, {
    code: 'WEBHOOK_LIMIT_REACHED',
    message: 'At most 20 webhook endpoints may exist; remove one first.',
    details: [],
  })
  const count = await server.services.database.prisma.webhookEndpoint.count()
  t.equal(count, WEBHOOK_MAX_ENDPOINTS)
  const patch = await server.inject({
    method: 'PATCH',
    url: '/webhooks/0192f7e1-4c5d-7e6f-8a7b-000000000000',
    headers: admin.auth,
    payload: {},
  })
  t.equal(patch.statusCode, 400, 'an update must change something')
})
