import t from 'tap'
import { parse } from 'yaml'
import { build } from '../helpers/build.ts'
import { loadSpec } from '../../src/spec.ts'

t.test('the contract is served at /openapi.json and shown at /docs', async (t) => {
  const app = await build(t)
  const spec = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(spec.statusCode, 200)
  t.match(spec.headers['content-type'], /^application\/json/)
  t.same(spec.json().info, loadSpec().info)
  t.same(Object.keys(spec.json().paths).sort(), Object.keys(loadSpec().paths).sort())

  const docs = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(docs.statusCode, 200)
  t.match(docs.headers['content-type'], /^text\/html/)
  t.match(docs.body, /swagger-ui/i)
})

t.test('every served copy of the contract names the origin it was served from as its server', async (t) => {
  const app = await build(t)
  // /docs loads /docs/json; clients and generators read /openapi.json (or /docs/yaml).
  for (const url of ['/openapi.json', '/docs/json', '/docs/yaml']) {
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:8080', 'https://api.example.org']) {
      const response = await app.inject({ method: 'GET', url, headers: { host: new URL(origin).host } })
      const document = url.endsWith('yaml') ? parse(response.body) : response.json()
      t.equal(new URL(document.servers[0].url, `${origin}${url}`).origin, origin, `${url} served at ${origin}`)
    }
    // The same document whoever asks: the Host header, which any client sets, is never copied into it.
    const hostile = await app.inject({ method: 'GET', url, headers: { host: 'attacker.example' } })
    t.notMatch(hostile.body, 'attacker.example', `${url} does not echo the Host header`)
  }
})

t.test('behind a proxy serving the API under a path (PUBLIC_URL with one), the docs carry it', async (t) => {
  const app = await build(t, { PUBLIC_URL: 'https://example.com/blog' })
  for (const url of ['/openapi.json', '/docs/json', '/docs/yaml']) {
    const response = await app.inject({ method: 'GET', url })
    const document = url.endsWith('yaml') ? parse(response.body) : response.json()
    t.same(
      document.servers.map((server: { url: string }) => server.url),
      ['/blog'],
      `${url}: Try it out calls /blog/…, which the proxy passes on`,
    )
  }
  // Opened without a trailing slash, the page links its assets from the root: with the prefix.
  const page = await app.inject({ method: 'GET', url: '/docs' })
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!)
  t.ok(assets.length > 0, 'the page links its assets')
  for (const asset of assets.filter((link) => link.startsWith('/')))
    t.match(asset, /^\/blog\/docs\//, `${asset} goes through the proxy`)
})

t.test('the /docs page loads nothing from other hosts: no spec validator, no remote styles or fonts', async (t) => {
  const app = await build(t)
  const docs = await app.inject({ method: 'GET', url: '/docs/' })
  const sources = String(docs.headers['content-security-policy'])
    .split(';')
    .flatMap((directive) => directive.trim().split(/\s+/).slice(1))
  t.same(
    sources.filter((source) => !["'self'", "'none'", 'data:', 'blob:'].includes(source) && !source.startsWith("'sha")),
    [],
    'every source is the page itself, data:, blob: or a script hash',
  )
  // An image answer of Try it out (getImage) is shown from a blob: URL the page made.
  t.match(String(docs.headers['content-security-policy']), /img-src [^;]*blob:/)
  // Swagger UI sends the spec's address to validator.swagger.io unless told not to.
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, /"validatorUrl":\s*null/)
})
