// Security headers on every answer, a CSP on /docs that still lets the page run, and CORS only for
// the configured origins.
import { createHash } from 'node:crypto'
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPost } from '../../helpers/posts.ts'
import { loadSpec } from '../../../src/spec.ts'

t.test('API answers carry security headers and forbid loading anything', async (t) => {
  const app = await build(t)
  for (const url of ['/ping', '/no/such/route']) {
    const response = await app.inject({ method: 'GET', url })
    t.equal(response.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", url)
    t.equal(response.headers['x-content-type-options'], 'nosniff')
    t.equal(response.headers['x-frame-options'], 'SAMEORIGIN')
    t.match(response.headers['strict-transport-security'], /max-age=\d+/)
    t.equal(
      response.headers['cross-origin-resource-policy'],
      'cross-origin',
      'images may be shown by front ends elsewhere',
    )
  }
})

/** Every security header, as helmet 8 sends them by default, with the API's CSP and CORP. */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
}

t.test('the whole set of security headers, on answers and refusals alike', async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'author')
  const post = await createPost(app, author, { status: 'published' })
  const answers = {
    ping: await app.inject({ method: 'GET', url: '/ping' }),
    // Twice: the second comes from the post cache, sent as a string already serialised.
    post: await app.inject({ method: 'GET', url: `/posts/${post.id}` }),
    cachedPost: await app.inject({ method: 'GET', url: `/posts/${post.id}` }),
    notModified: await app.inject({
      method: 'GET',
      url: `/posts/${post.id}`,
      headers: { 'if-none-match': '*' },
    }),
    created: await app.inject({
      method: 'POST',
      url: '/posts',
      headers: author.auth,
      payload: { title: 'A title', body: 'A body.' },
    }),
    unauthenticated: await app.inject({ method: 'GET', url: '/me' }),
    invalid: await app.inject({ method: 'GET', url: '/posts/not-an-id' }),
    notFound: await app.inject({ method: 'GET', url: '/no/such/route' }),
    notAllowed: await app.inject({ method: 'DELETE', url: '/ping' }),
  }
  for (const [name, response] of Object.entries(answers)) {
    const sent = Object.fromEntries(Object.keys(SECURITY_HEADERS).map((header) => [header, response.headers[header]]))
    t.same(sent, SECURITY_HEADERS, `${name} (${response.statusCode})`)
  }
})

t.test('/docs gets a CSP that allows its own scripts and styles, inline ones by hash', async (t) => {
  const app = await build(t)
  const page = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(page.statusCode, 200)
  const csp = String(page.headers['content-security-policy'])
  t.match(csp, /script-src 'self'/)
  t.match(csp, /style-src 'self'/)
  t.notMatch(csp, /upgrade-insecure-requests/, 'works over plain HTTP too')
  for (const [, body] of page.body.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    t.ok(
      csp.includes(`'sha256-${createHash('sha256').update(body!).digest('base64')}'`),
      'each inline script is allowed by its hash',
    )
  }
  const sources = [...page.body.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((match) => match[1]!)
  t.ok(sources.length > 0, 'the page loads scripts and styles')
  for (const source of sources) {
    const asset = await app.inject({ method: 'GET', url: `/docs/${source.replace(/^\.\//, '')}` })
    t.equal(asset.statusCode, 200, `${source} is served`)
  }
})

t.test('CORS: only configured origins, preflight included; none when not configured', async (t) => {
  const app = await build(t, { CORS_ORIGINS: 'https://blog.example.com' })
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/posts',
    headers: {
      origin: 'https://blog.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], 'https://blog.example.com')
  t.match(preflight.headers['access-control-allow-methods'], /POST/)
  t.match(preflight.headers['access-control-allow-headers'], /authorization/)
  const simple = await app.inject({ method: 'GET', url: '/ping', headers: { origin: 'https://blog.example.com' } })
  t.equal(simple.headers['access-control-allow-origin'], 'https://blog.example.com')
  t.match(simple.headers['access-control-expose-headers'], /x-request-id/)
  const stranger = await app.inject({ method: 'GET', url: '/ping', headers: { origin: 'https://evil.example.net' } })
  t.equal(stranger.headers['access-control-allow-origin'], undefined, 'another origin gets no CORS headers')

  const closed = await build(t)
  const none = await closed.inject({ method: 'GET', url: '/ping', headers: { origin: 'https://blog.example.com' } })
  t.equal(none.headers['access-control-allow-origin'], undefined, 'no CORS_ORIGINS, no CORS')
})

t.test('CORS exposes every response header the spec documents, and the request id', async (t) => {
  // Header names are the keys of a response's `headers` map, in the operations and in shared responses.
  const documented = new Set<string>()
  const collect = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key === 'headers' && value !== null && typeof value === 'object')
        for (const name of Object.keys(value)) documented.add(name.toLowerCase())
      collect(value)
    }
  }
  const spec = loadSpec()
  collect(spec.paths)
  collect(spec.components.responses)
  // Browsers always let a page read these (the CORS-safelisted response headers).
  for (const safelisted of [
    'cache-control',
    'content-language',
    'content-length',
    'content-type',
    'expires',
    'last-modified',
    'pragma',
  ])
    documented.delete(safelisted)
  t.ok(documented.has('api-version') && documented.has('retry-after'), 'the spec documents API-Version and Retry-After')

  const app = await build(t, { CORS_ORIGINS: 'https://blog.example.com' })
  const answer = await app.inject({ method: 'GET', url: '/ping', headers: { origin: 'https://blog.example.com' } })
  const exposed = String(answer.headers['access-control-expose-headers'])
    .toLowerCase()
    .split(/\s*,\s*/)
  for (const name of [...documented, 'x-request-id']) t.ok(exposed.includes(name), `${name} is exposed`)
})
