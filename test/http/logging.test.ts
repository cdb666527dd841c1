// The log lines of a sign-up, a login, a refresh and a logout, captured from a real server process
// at its most verbose level: each names its request id, and none holds a password or a token.
// And a login whose body, headers and answer are all logged, through the production logger
// configuration at its default level: the redaction replaces every secret.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import type { HandlerMap } from '../../src/http/operations.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build } from '../helpers/build.ts'
import { startServer } from '../helpers/server-process.ts'

t.test('no password, access token or refresh token reaches the logs', async (t) => {
  const server = await startServer({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-logging-')),
    DATABASE_URL: process.env.DATABASE_URL ?? '',
    JWT_SECRET: 'logging-test-secret-logging-test-secret-0123',
    LOG_LEVEL: 'trace',
  })
  t.teardown(() => server.child.kill('SIGTERM'))
  type Tokens = { data: { accessToken: string; refreshToken: string } }
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  const email = `logging-${Date.now()}@example.com`
  const password = 'a-password-that-must-not-be-logged'
  const registered = (await (
    await post('/register', { email, password, name: 'Logging' }, { 'x-request-id': 'log-register' })
  ).json()) as Tokens
  const wrong = await post('/login', { email, password: `${password}-wrong` }, { 'x-request-id': 'log-login-wrong' })
  t.equal(wrong.status, 401, await wrong.clone().text())
  const signedIn = (await (await post('/login', { email, password }, { 'x-request-id': 'log-login' })).json()) as Tokens
  const refreshed = (await (
    await post('/refresh', { refreshToken: signedIn.data.refreshToken }, { 'x-request-id': 'log-refresh' })
  ).json()) as Tokens
  const bearer = {
    authorization: `Bearer ${refreshed.data.accessToken}`,
    cookie: 'session=a-cookie-that-must-not-be-logged',
  }
  t.equal((await fetch(`${server.url}/me`, { headers: { ...bearer, 'x-request-id': 'log-me' } })).status, 200)
  t.equal((await post('/logout', {}, { ...bearer, 'x-request-id': 'log-logout' })).status, 204)
  server.child.kill('SIGTERM')
  await server.exit

  const secrets = {
    password,
    'wrong password': `${password}-wrong`,
    cookie: 'a-cookie-that-must-not-be-logged',
    ...Object.fromEntries(
      [registered, signedIn, refreshed].flatMap((body, index) => [
        [`access token ${index}`, body.data.accessToken],
        [`refresh token ${index}`, body.data.refreshToken],
      ]),
    ),
  }
  const lines = server.logs.map((entry) => JSON.stringify(entry))
  for (const id of ['log-register', 'log-login-wrong', 'log-login', 'log-refresh', 'log-me', 'log-logout']) {
    t.ok(
      lines.some((line) => line.includes(`"reqId":"${id}"`)),
      `the request ${id} is logged under its request id`,
    )
  }
  for (const [name, secret] of Object.entries(secrets)) {
    t.type(secret, 'string')
    t.notOk(
      lines.some((line) => line.includes(secret)),
      `no log line holds the ${name}`,
    )
  }
})

t.test(
  'a login whose body, headers and answer are logged shows [redacted] for each secret (production logger, info level)',
  async (t) => {
    const lines: string[] = []
    // A login handler that logs everything a login carries, as careless code might: the logger's
    // redaction, not the care of whoever writes a log call, must keep the secrets out.
    const login: HandlerMap['login'] = async (request, reply) => {
      const answer = await handlers.login(request, reply)
      request.log.info({ body: request.body, headers: request.headers, reply: answer }, 'login handled')
      return answer
    }
    const app = await build(
      t,
      { LOG_LEVEL: 'info' },
      { logDestination: { write: (line) => void lines.push(line) }, handlers: { login } },
    )
    const user = await registerUser(app, 'logging')
    const cookie = 'session=a-cookie-that-must-not-be-logged'
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      // A client signing in again still sends its old token: the header is logged too.
      headers: { authorization: `Bearer ${user.accessToken}`, cookie, 'x-request-id': 'log-login-info' },
      payload: { email: user.email, password: user.password },
    })
    t.equal(response.statusCode, 200)
    const signedIn = response.json().data as { accessToken: string; refreshToken: string }

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const ofLogin = entries.filter((entry) => entry.reqId === 'log-login-info')
    t.ok(
      ofLogin.some((entry) => entry.msg === 'incoming request'),
      'the login is logged as it comes in',
    )
    t.ok(
      ofLogin.some((entry) => entry.msg === 'request completed'),
      'and as it is answered',
    )
    t.match(
      ofLogin.find((entry) => entry.msg === 'login handled'),
      {
        body: '[redacted]',
        headers: { authorization: '[redacted]', cookie: '[redacted]', 'x-request-id': 'log-login-info' },
        reply: { data: { accessToken: '[redacted]', refreshToken: '[redacted]', user: { email: user.email } } },
      },
      'the body, the credentials in the headers and the tokens in the answer are replaced, the rest is kept',
    )
    const secrets = {
      password: user.password,
      'old access token': user.accessToken,
      cookie,
      'access token': signedIn.accessToken,
      'refresh token': signedIn.refreshToken,
    }
    for (const [name, secret] of Object.entries(secrets))
      t.notOk(
        lines.some((line) => line.includes(secret)),
        `no log line holds the ${name}`,
      )
  },
)
