// Which port serves what: the probes and metrics on the internal listener, off the public port
// where INTERNAL_ON_PUBLIC_PORT is false (production's default); the docs on both unless
// PUBLIC_DOCS=false; nothing else on the internal listener.
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { closeInternally, listenInternally } from '../../src/http/internal-listener.ts'
import { loadConfig } from '../../src/config.ts'
import { build } from '../helpers/build.ts'

async function listening(t: Test, env: Record<string, string>) {
  const app = await build(t, env)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const internal = await listenInternally(app, { ...app.services.config, internalPort: 0 })
  t.teardown(() => closeInternally(internal))
  const at =
    (port: number) =>
    (path: string, method = 'GET') =>
      fetch(`http://127.0.0.1:${port}${path}`, { method })
  return {
    publicPort: at((app.server.address() as AddressInfo).port),
    internalPort: at((internal.address() as AddressInfo).port),
  }
}

const PROBES = ['/health', '/health/live', '/metrics']
const DOCS = ['/docs', '/openapi.json']

async function status(get: (path: string, method?: string) => Promise<Response>, path: string) {
  const response = await get(path)
  const text = await response.text()
  return response.status === 404 ? `404 ${JSON.parse(text).error.code}` : String(response.status)
}

t.test('INTERNAL_ON_PUBLIC_PORT=false: probes and metrics only on the internal listener', async (t) => {
  const { publicPort, internalPort } = await listening(t, { INTERNAL_ON_PUBLIC_PORT: 'false' })
  for (const path of PROBES) {
    t.equal(await status(publicPort, path), '404 ROUTE_NOT_FOUND', `public ${path}: as an unknown path`)
    t.equal(await status(internalPort, path), '200', `internal ${path}`)
  }
  for (const path of DOCS) {
    t.equal(await status(publicPort, path), '200', `public ${path}`)
    t.equal(await status(internalPort, path), '200', `internal ${path}`)
  }
  t.equal(await status(publicPort, '/ping'), '200', 'the public ping stays')
  for (const path of ['/ping', '/posts', '/categories'])
    t.equal(await status(internalPort, path), '404 ROUTE_NOT_FOUND', `internal ${path}: the API is not served there`)
  // Nothing tells an internal path from an unknown one on the public port: no 405 with an Allow.
  const probes: [string, string][] = [
    ['GET', '/health/'],
    ['GET', '/metrics/'],
    ['POST', '/metrics'],
    ['POST', '/health/live'],
    ['DELETE', '/health'],
  ]
  for (const [method, path] of probes) {
    const response = await publicPort(path, method)
    t.equal(response.status, 404, `public ${method} ${path}: as an unknown path`)
    t.equal(response.headers.get('allow'), null)
  }
  const live = await (await internalPort('/health/live')).json()
  t.match(live, { data: { status: 'ok', uptimeSeconds: Number }, error: null }, 'liveness answers in the envelope')
})

t.test('PUBLIC_DOCS=false: the docs only on the internal listener', async (t) => {
  const { publicPort, internalPort } = await listening(t, { PUBLIC_DOCS: 'false' })
  for (const path of DOCS) {
    t.equal(await status(publicPort, path), '404 ROUTE_NOT_FOUND', `public ${path}`)
    t.equal(await status(internalPort, path), '200', `internal ${path}`)
  }
  t.equal(await status(publicPort, '/docs/static/index.html'), '404 ROUTE_NOT_FOUND', "public: the page's files too")
  const other = await publicPort('/docs', 'DELETE')
  t.equal(other.status, 404, 'public DELETE /docs: as an unknown path, not 405')
})

t.test('outside production the public port serves the probes too (the default)', async (t) => {
  const { publicPort } = await listening(t, {})
  for (const path of PROBES) t.equal(await status(publicPort, path), '200', `public ${path}`)
})

t.test('the defaults: loopback, probes off the public port in production, a drain there', async (t) => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://db/blog',
    SMTP_URL: 'smtp://mail',
    PUBLIC_URL: 'https://blog.example.org',
    EMAIL_VERIFICATION_URL: 'https://blog.example.org/verify?token={token}',
    PASSWORD_RESET_URL: 'https://blog.example.org/reset?token={token}',
  }
  const inProduction = loadConfig({ ...production, JWT_SECRET: 'x'.repeat(40) })
  t.match(inProduction, {
    internalHost: '127.0.0.1',
    internalOnPublicPort: false,
    publicDocs: true,
    drainPeriodMs: 5000,
  })
  const elsewhere = loadConfig({ DATA_DIR: 'memory:' })
  t.match(elsewhere, { internalHost: '127.0.0.1', internalOnPublicPort: true, drainPeriodMs: 0 })
  t.throws(
    () => loadConfig({ DATA_DIR: 'memory:', DRAIN_PERIOD_MS: '9000', SHUTDOWN_TIMEOUT_MS: '10000' }),
    /^Invalid configuration: DRAIN_PERIOD_MS must be at most SHUTDOWN_TIMEOUT_MS \(10000\) less 2 s/,
    'a drain that leaves no time for the close is refused',
  )
})

t.test('an INTERNAL_PORT in use stops start-up naming the setting', async (t) => {
  const app = await build(t)
  const first = await listenInternally(app, { ...app.services.config, internalPort: 0 })
  t.teardown(() => closeInternally(first))
  const taken = (first.address() as AddressInfo).port
  await t.rejects(listenInternally(app, { ...app.services.config, internalPort: taken }), {
    message: `INTERNAL_PORT ${taken} on 127.0.0.1 is in use: give each instance on a host an INTERNAL_PORT of its own`,
  })
})
