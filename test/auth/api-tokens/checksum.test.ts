// A token's checksum is checked before any database read: a typo, a truncated token or anything
// else with the `blog_` prefix that is not well formed is refused (401 API_TOKEN_INVALID) without a
// statement, counted on PostgreSQL (test/helpers/statements.ts). A good token costs one read,
// the indexed lookup of its row with its owner, as a JWT's session check does.
import t from 'tap'
import { API_TOKEN_LENGTH, isWellFormedApiToken, newApiToken } from '../../../src/auth/api-tokens/api-token-format.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { statementsOf } from '../../helpers/statements.ts'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

t.test('the form: blog_, 49 base62 characters, and every single-character typo fails the checksum', async (t) => {
  const tokens = Array.from({ length: 200 }, newApiToken)
  t.ok(
    tokens.every((token) => /^blog_[0-9A-Za-z]{49}$/.test(token) && token.length === API_TOKEN_LENGTH),
    '54 characters of the documented pattern',
  )
  t.ok(tokens.every(isWellFormedApiToken), 'each new token passes its own checksum')
  t.equal(new Set(tokens).size, tokens.length, 'no two alike')
  const [token] = tokens as [string]
  let typos = 0
  for (let at = 5; at < token.length; at++) {
    for (const letter of ALPHABET) {
      if (letter === token[at]) continue
      typos++
      if (isWellFormedApiToken(token.slice(0, at) + letter + token.slice(at + 1)))
        t.fail(`${letter} at ${at} passed the checksum`)
    }
  }
  t.equal(typos, 49 * 61, `${typos} typos refused`)
  t.notOk(isWellFormedApiToken(token.slice(0, -1)), 'one character short')
  t.notOk(isWellFormedApiToken(`${token}0`), 'one too many')
  t.notOk(isWellFormedApiToken(token.replace('blog_', 'blag_')), 'another prefix')
  t.notOk(isWellFormedApiToken(`${token.slice(0, 20)}-${token.slice(21)}`), 'a character outside base62')
})

t.test('over HTTP: refused before any read; a good token costs one read', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const { token, auth } = await createApiToken(app, owner, { scopes: ['account:read'] })
  const me = (authorization: string) => app.inject({ method: 'GET', url: '/me', headers: { authorization } })
  const last = token.at(-1)!
  const typo = `${token.slice(0, -1)}${ALPHABET[(ALPHABET.indexOf(last) + 1) % 62]}`
  const wrongs = {
    'a typo in the checksum': typo,
    'a typo in the secret': `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`,
    truncated: token.slice(0, 30),
    'the prefix alone': 'blog_',
  }
  for (const [what, wrong] of Object.entries(wrongs)) {
    const { count, texts } = usingPostgres
      ? await statementsOf(async () => {
          const answer = await me(`Bearer ${wrong}`)
          t.equal(answer.statusCode, 401, what)
          t.equal(answer.json().error.code, 'API_TOKEN_INVALID', what)
          t.equal(answer.headers['www-authenticate'], 'Bearer error="invalid_token"', what)
        })
      : { count: 0, texts: [] }
    if (!usingPostgres) {
      const answer = await me(`Bearer ${wrong}`)
      t.same([answer.statusCode, answer.json().error.code], [401, 'API_TOKEN_INVALID'], what)
    }
    t.equal(count, 0, `${what}: no statement (${texts.join('; ')})`)
  }

  // Checksummed, but no token of ours: its one read finds nothing.
  const stranger = newApiToken()
  t.equal((await me(`Bearer ${stranger}`)).json().error.code, 'API_TOKEN_INVALID', 'well formed, unknown')
  t.equal((await app.inject({ method: 'GET', url: '/me', headers: auth })).statusCode, 200, 'the token itself')

  if (!usingPostgres) return
  const counted = async (authorization: string) => (await statementsOf(() => me(authorization))).texts
  const unknown = await counted(`Bearer ${stranger}`)
  t.equal(unknown.length, 1, 'an unknown, well-formed token: its one lookup')
  t.match(unknown[0], /from api_tokens t join users u/)
  // Marked used by the request above: within the minute, no write.
  const withToken = await counted(auth.authorization)
  const withSession = await counted(owner.auth.authorization)
  t.equal(withToken.length, withSession.length, `getCurrentUser: ${withToken.length} statements either way`)
  t.equal(withToken.filter((text) => /api_tokens/.test(text)).length, 1, "the token's check is one statement")
  t.equal(withSession.filter((text) => /from sessions/.test(text)).length, 1, "as a session's is")
})
