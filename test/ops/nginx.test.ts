// Behind a reverse proxy, for real: Debian's nginx, configured by docs/nginx/blog.conf itself,
// ends TLS in front of two production instances (NODE_ENV=production, TRUST_PROXY=127.0.0.1) on
// one PostgreSQL. Checked through it: an upload of UPLOAD_LIMIT_BYTES reaches the service and one
// over it gets our 413 envelope, from the service or from nginx; the login limit counts each
// client by its own address, whatever X-Forwarded-For it sends; request ids go from client to
// nginx's log, the instance's log and back; the feed links to PUBLIC_URL; the probes stay
// internal; and a rolling restart under load fails no request (test/helpers/rolling-restart.ts).
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { MULTIPART_FRAMING_BYTES } from '../../src/http/body/upload.ts'
import { usingPostgres } from '../helpers/build.ts'
import { httpsClient, type HttpsAnswer, type HttpsClient, type HttpsRequest } from '../helpers/https-client.ts'
import { eventually, multipartBody, pngOfSize } from '../helpers/images.ts'
import { freePort, nginxMissing, startNginx } from '../helpers/nginx.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { countFailures, fleetOf, rollingRestartUnderLoad } from '../helpers/rolling-restart.ts'

// Over nginx's default client_max_body_size (1 MiB), as the thumbnails that met it were.
const UPLOAD_LIMIT_BYTES = 1_536 * 1024
const LOGIN_LIMIT_PER_ADDRESS = 5

const skip =
  nginxMissing ||
  (usingPostgres ? false : 'needs PostgreSQL: two instances share one database, which the embedded one cannot be')

/** nginx, two instances behind it, clients and an author with a published post. */
async function setUp(t: Test) {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  const ports = [await freePort(), await freePort()]
  const upstreams: [string, string] = [`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`]
  const nginx = await startNginx(t, upstreams, UPLOAD_LIMIT_BYTES + MULTIPART_FRAMING_BYTES)
  const fleet = await fleetOf(t, ports, {
    NODE_ENV: 'production',
    DATABASE_URL: await createScratchDatabase(t, 'nginx'),
    SMTP_URL: smtp.url,
    JWT_SECRET: 'nginx-test-secret-nginx-test-secret-0123',
    PUBLIC_URL: nginx.url,
    EMAIL_VERIFICATION_URL: 'https://blog.example.org/verify?token={token}',
    PASSWORD_RESET_URL: 'https://blog.example.org/reset?token={token}',
    TRUST_PROXY: '127.0.0.1',
    UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT_BYTES),
    LOGIN_LIMIT_PER_ADDRESS: String(LOGIN_LIMIT_PER_ADDRESS),
    // The rolling restart's load comments from one account as fast as it can: far past its write
    // budget (tested on its own, test/http/limits/write-budget.test.ts).
    WRITE_BUDGET: '1000000',
    // And far more often than the flood interval allows (15 s: every comment but one would be
    // 429), as a new account (first-time moderation would hold each as pending, out of what the
    // readers see). What is tested here is that no request fails across a restart, so every
    // comment must be a 201 that is published; the policy has its own tests
    // (test/content/comments/moderation.test.ts, flood.test.ts). Each comment's body is its own
    // (the request id): the same body twice on one post is 409 DUPLICATE_COMMENT, whatever the settings.
    COMMENT_MODERATION: 'off',
    COMMENT_MIN_INTERVAL_SECONDS: '0',
  })
  const clients: HttpsClient[] = []
  t.teardown(() => clients.forEach((client) => client.close()))
  /** A client whose connections to nginx leave from `address`. */
  const from = (address: string): Send => {
    const client = httpsClient({ ca: nginx.ca, localAddress: address })
    clients.push(client)
    return (path, options) => client.send(`${nginx.url}${path}`, options)
  }
  const local = from('127.0.0.1')
  const author = await register(local)
  const created = await local('/posts', {
    method: 'POST',
    headers: author.auth,
    body: { title: 'Behind nginx', body: 'Served through a proxy.', status: 'published' },
  })
  if (created.status !== 201) throw new Error(`a post through nginx: ${created.status} ${created.text}`)
  const post = created.json().data as { id: string; slug: string }
  /** The instance's log line for the request with this id. */
  const logged = (id: string) => fleet.logs().find((entry) => entry.reqId === id && entry.msg === 'incoming request')
  return { nginx, fleet, from, local, author, post, logged }
}

type Send = (path: string, options?: HttpsRequest) => Promise<HttpsAnswer>
type Setting = Awaited<ReturnType<typeof setUp>>

async function register(send: Send) {
  const email = `nginx-${randomUUID()}@example.com`
  const password = `pw-${randomUUID()}`
  const answer = await send('/register', { method: 'POST', body: { email, password, name: 'Behind nginx' } })
  if (answer.status !== 201) throw new Error(`register: ${answer.status} ${answer.text}`)
  return { email, password, auth: { authorization: `Bearer ${answer.json().data.accessToken}` } }
}

const login = (send: Send, email: string, password: string, headers: Record<string, string> = {}) =>
  send('/login', { method: 'POST', headers, body: { email, password } })

async function uploads(t: Test, { local, author, post }: Setting) {
  const upload = (bytes: Buffer) => {
    const form = multipartBody([{ name: 'file', data: bytes, filename: 'photo.png', contentType: 'image/png' }])
    const headers = { ...author.auth, 'content-type': form.contentType }
    return local(`/posts/${post.id}/thumbnail`, { method: 'PUT', headers, body: form.payload })
  }
  const atLimit = await pngOfSize(UPLOAD_LIMIT_BYTES)
  t.ok(atLimit.length > 1024 * 1024, `the image (${atLimit.length} bytes) is over nginx's default 1 MiB`)
  const accepted = await upload(atLimit)
  t.equal(accepted.status, 200, `an image of ${atLimit.length} bytes, within ${UPLOAD_LIMIT_BYTES}, is accepted`)
  t.ok(accepted.json().data.thumbnail, 'and becomes the thumbnail')

  const over = await upload(await pngOfSize(UPLOAD_LIMIT_BYTES + 16 * 1024))
  t.equal(over.status, 413)
  t.match(over.headers['content-type'], /^application\/json/, 'JSON, not an HTML page')
  t.match(over.json(), { data: null, error: { code: 'PAYLOAD_TOO_LARGE', message: /file is larger than/ } })
  t.ok(over.headers['api-version'], 'answered by the service, which read the file up to its limit')

  const huge = await upload(Buffer.alloc(UPLOAD_LIMIT_BYTES + 256 * 1024))
  t.equal(huge.status, 413, 'a body past client_max_body_size is refused by nginx')
  t.match(huge.headers['content-type'], /^application\/json/, 'still JSON')
  t.match(huge.json(), { data: null, error: { code: 'PAYLOAD_TOO_LARGE', details: [] } }, 'in our envelope')
  t.equal(huge.json().meta.requestId, huge.headers['x-request-id'], 'with its request id')
}

/** LOGIN_LIMIT_PER_ADDRESS wrong passwords, then one more: the statuses. */
async function exhaust(send: Send, email: string, headers: () => Record<string, string>) {
  const statuses: number[] = []
  for (let attempt = 0; attempt <= LOGIN_LIMIT_PER_ADDRESS; attempt++)
    statuses.push((await login(send, email, 'wrong-password', headers())).status)
  return statuses
}
const EXHAUSTED = [...Array<number>(LOGIN_LIMIT_PER_ADDRESS).fill(401), 429]

async function limitsByAddress(t: Test, { from, logged }: Setting) {
  const [abuser, owner] = [from('127.0.0.2'), from('127.0.0.3')]
  const account = await register(owner)
  const ids: string[] = []
  const statuses = await exhaust(abuser, account.email, () => ({ 'x-request-id': ids[ids.push(randomUUID()) - 1]! }))
  t.same(statuses, EXHAUSTED, 'wrong passwords, then the limit')
  t.ok(await eventually(async () => ids.every(logged)), 'every attempt is in an instance log')
  t.same(
    [...new Set(ids.map((id) => (logged(id)!.req as { remoteAddress: string }).remoteAddress))],
    ['127.0.0.2'],
    "counted as the abuser's own address, not nginx's",
  )
  t.equal((await login(owner, account.email, account.password)).status, 200, 'the owner, elsewhere, still logs in')
}

async function spoofer(t: Test, { from }: Setting) {
  const [spoofing, owner] = [from('127.0.0.4'), from('127.0.0.5')]
  const account = await register(owner)
  const statuses = await exhaust(spoofing, account.email, () => ({ 'x-forwarded-for': '127.0.0.5' }))
  t.same(statuses, EXHAUSTED, "claiming the owner's address, the spoofer spends its own allowance")
  const fresh = await login(spoofing, account.email, 'wrong-password', { 'x-forwarded-for': '127.0.0.9' })
  t.equal(fresh.status, 429, 'claiming a fresh address does not escape its limit')
  t.equal((await login(owner, account.email, account.password)).status, 200, 'and the owner was not locked out')
}

async function requestIds(t: Test, { nginx, local, logged }: Setting) {
  // nginx writes its line once the answer is sent: it may come after the client has read it.
  const inAccessLog = (id: string) =>
    eventually(async () => nginx.accessLog().some((line) => line.includes(` id=${id} `)))
  const own = `client-${randomUUID()}`
  const kept = await local('/posts', { headers: { 'x-request-id': own } })
  t.equal(kept.headers['x-request-id'], own, "a client's id comes back")
  t.equal(kept.json().meta.requestId, own, 'in meta.requestId too')
  t.ok(await eventually(async () => logged(own) !== undefined), "it is the instance's log line's reqId")
  t.ok(await inAccessLog(own), "and in nginx's access log")

  const none = await local('/posts')
  const given = String(none.headers['x-request-id'])
  t.match(given, /^[0-9a-f]{32}$/, "without one, nginx's $request_id")
  t.equal(none.json().meta.requestId, given, 'in meta.requestId too')
  t.ok(await eventually(async () => logged(given) !== undefined), "and in the instance's log")
  t.ok(await inAccessLog(given), "and in nginx's")

  const unfit = await local('/posts', { headers: { 'x-request-id': 'two words' } })
  t.match(unfit.headers['x-request-id'], /^[0-9a-f]{32}$/, 'an id the service would not keep is replaced by nginx')
  t.equal(unfit.json().meta.requestId, unfit.headers['x-request-id'])
}

async function publicUrlAndProbes(t: Test, { nginx, local, post }: Setting) {
  const feed = await local('/feed.atom')
  t.equal(feed.status, 200)
  // Links only: the ids are URNs (urn:uuid:…), the same whatever the URL.
  const links = [...feed.text.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!)
  t.ok(links.includes(`${nginx.url}/posts/by-slug/${post.slug}`), "the post's link is on the public URL")
  t.same(
    links.filter((link) => !link.startsWith(`${nginx.url}/`)),
    [],
    `every link starts with ${nginx.url}/`,
  )
  for (const path of ['/health', '/health/live', '/metrics']) {
    const answer = await local(path)
    t.equal(answer.status, 404, `${path} is not served through nginx`)
    t.equal(answer.json().error.code, 'ROUTE_NOT_FOUND')
  }
}

// Expects no failure at all. nginx (open source) cannot follow readiness: a POST it sends on a new
// connection in the instant an instance closes its port gets 502 (docs/operations.md, "Behind
// nginx"); when this fails, the failure's step, time in it and nginx's error log say whether that
// was it.
async function rollingRestart(t: Test, { nginx, fleet, from, local, post }: Setting) {
  const commenter = await register(local)
  const report = await rollingRestartUnderLoad(fleet, () => from('127.0.0.1'), {
    read: { path: `/posts/${post.id}` },
    write: {
      path: `/posts/${post.id}/comments`,
      headers: commenter.auth,
      body: (id) => ({ body: `Still here (${id}).` }),
    },
  })
  // Warnings and worse, less the request bodies nginx buffered to files (the uploads before).
  const notable = nginx
    .errorLog()
    .filter((line) => / \[(warn|error|crit|alert|emerg)\] /.test(line) && !line.includes('to a temporary file'))
  t.comment(`${report.total} requests; by step: ${JSON.stringify(report.byStep)}`)
  t.comment(`nginx's error log (${notable.length} lines):\n${notable.slice(0, 30).join('\n')}`)
  t.same(report.exits, [0, 0], 'each instance exited 0')
  for (const step of report.steps) t.ok((report.byStep[step] ?? 0) > 0, `requests were sent ${step}`)
  t.ok(report.restartedServed, 'each restarted instance served the load')
  if (report.failures.length > 0) t.comment(JSON.stringify(report.failures.slice(0, 5), null, 2))
  t.same(countFailures(report.failures), {}, 'no request failed: no socket error, no 5xx, nothing but 200 and 201')
}

t.test('nginx in front of two instances', { skip }, async (t) => {
  const setting = await setUp(t)
  t.test('an upload of UPLOAD_LIMIT_BYTES reaches the service; one over it gets our 413 envelope', (t) =>
    uploads(t, setting),
  )
  t.test('the login limit counts each client by its own address', (t) => limitsByAddress(t, setting))
  t.test("a client's own X-Forwarded-For is not believed", (t) => spoofer(t, setting))
  t.test('request ids go from the client to both logs and back', (t) => requestIds(t, setting))
  t.test('the feed links to PUBLIC_URL; the probes and metrics stay internal', (t) => publicUrlAndProbes(t, setting))
  t.test('a rolling restart under load fails no request', (t) => rollingRestart(t, setting))
})
