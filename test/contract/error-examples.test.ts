// Every error example in the spec is an answer the service really gives: each is replayed against
// the app and its `error` (code, message, details) must be the one received, word for word. Client
// teams read these examples to write their error handling; one the service never sends misleads
// them. An example that cannot be replayed here is listed with the reason, so that a new example
// is replayed or explained, never left unchecked.
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { crc32 } from 'node:zlib'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import { notImplemented } from '../../src/http/errors/not-implemented.ts'
import { loadSpec } from '../../src/spec.ts'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { createApiToken } from '../helpers/api-tokens.ts'
import { build } from '../helpers/build.ts'
import { createCategory, createComment, uniqueSlug } from '../helpers/content.ts'
import { pngClaiming, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { createPost } from '../helpers/posts.ts'
import { exchange, timedOut } from '../helpers/raw-http.ts'
import { signToken } from '../helpers/tokens.ts'

type ErrorBody = { code: string; message: string; details: unknown[] }
type Replay = () => Promise<ErrorBody>

const spec = loadSpec() as unknown as {
  components: {
    responses: Record<
      string,
      { content?: Record<string, { examples?: Record<string, { value: { error: ErrorBody | null } }> }> }
    >
  }
}

/** `Response.example` → the `error` of that example, for every error example in components.responses. */
function errorExamples(): Map<string, ErrorBody> {
  const found = new Map<string, ErrorBody>()
  for (const [response, { content }] of Object.entries(spec.components.responses)) {
    for (const [name, { value }] of Object.entries(content?.['application/json']?.examples ?? {})) {
      if (value.error) found.set(`${response}.${name}`, value.error)
    }
  }
  return found
}

/** Not replayed here, and why; their text is taken from the code that sends them. */
const NOT_REPLAYED: Record<string, string> = {
  'TooManyRequests.rateLimited': 'names the seconds left in the window, which depend on the clock',
  'TooManyRequests.accountMailLimited':
    'names the seconds left in the window (test/auth/account-email/password-reset.test.ts)',
  'ServiceUnavailable.databaseDown': "getHealth's answer when the database is down (test/db/unavailable.test.ts)",
  'Conflict.lastAdmin':
    'needs a database with one admin; compared with this example in test/auth/accounts/delete-account.test.ts',
  'Conflict.webhookLimitReached': 'needs 20 endpoints; compared with this example in test/webhooks/endpoints.test.ts',
  'Conflict.apiTokenLimitReached': 'needs 20 tokens; compared with this example in test/auth/api-tokens/bounds.test.ts',
  'Unauthorized.apiTokenExpired': 'needs a token past its expiry; compared in test/auth/api-tokens/bounds.test.ts',
  'TooManyWrites.writeBudgetSpent':
    'names the seconds left in the window, which depend on the clock (test/http/limits/write-budget.test.ts)',
  'Conflict.mediaInUse': 'names the ids of posts made here; its shape is checked in test/content/media/delete.test.ts',
  'PayloadTooLarge.mediaQuotaExceeded':
    'names the bytes of renditions encoded here; its shape is checked in test/content/media/quota.test.ts',
}

/** The error in the JSON body of a raw HTTP answer. */
const errorIn = (answer: string) => (JSON.parse(answer.split('\r\n\r\n', 2)[1] ?? '') as { error: ErrorBody }).error

/** A 1×1 PNG carrying `count` empty tEXt chunks: more metadata blocks than allowed, in 20 bytes each. */
async function pngWithTextChunks(count: number): Promise<Buffer> {
  const png = Buffer.from(await solidImage(1, 1, 'png'))
  const chunk = Buffer.alloc(20)
  chunk.writeUInt32BE(8, 0)
  chunk.write('tEXtkey\0note', 4, 'latin1')
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 16)) >>> 0, 16)
  // After the signature (8 bytes) and IHDR (25 bytes).
  return Buffer.concat([png.subarray(0, 33), ...Array<Buffer>(count).fill(chunk), png.subarray(33)])
}

t.test('every error example in the spec is what the service answers', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const draft = await createPost(app, user)
  const published = await createPost(app, user, { status: 'published' })
  const errorOf = async (request: InjectOptions) => (await app.inject(request)).json().error as ErrorBody
  const unknownId = randomUUID()
  const upload = async (data: Buffer | string) =>
    (await uploadThumbnail(app, draft.id, user.auth, data)).json().error as ErrorBody
  const defaultCategory = await app.services.database.prisma.category.findFirstOrThrow({
    where: { isDefault: true },
    select: { id: true },
  })

  const replays: Record<string, Replay> = {
    'BadRequest.validationFailed': () =>
      errorOf({
        method: 'POST',
        url: '/register',
        payload: { email: 'alice.example.com', password: 'too-short', name: 'Alice Martin' },
      }),
    'BadRequest.unknownField': () =>
      errorOf({
        method: 'POST',
        url: '/posts',
        headers: user.auth,
        payload: { title: 'A title', body: 'A body.', authorId: unknownId },
      }),
    'BadRequest.malformedJson': () =>
      errorOf({
        method: 'POST',
        url: '/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"email": "alice@example.com",',
      }),
    'MalformedRequest.malformedRequest': async () =>
      errorIn(await exchange(port, 'GET /ping HTTP/1.1\r\nHost: localhost\r\nNot a header\r\n\r\n')),
    'HeadersTooLarge.headersTooLarge': async () =>
      errorIn(
        await exchange(port, `GET /ping HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`),
      ),
    'RequestTimeout.requestTimeout': async () => errorIn(await timedOut(app.server, port)),
    'Unauthorized.unauthenticated': () => errorOf({ method: 'GET', url: '/me' }),
    'Unauthorized.tokenExpired': () => {
      const past = Math.floor(Date.now() / 1000) - 3600
      return errorOf({
        method: 'GET',
        url: '/me',
        headers: { authorization: `Bearer ${signToken({ claims: { iat: past - 600, exp: past } })}` },
      })
    },
    'Unauthorized.tokenInvalid': () =>
      errorOf({ method: 'GET', url: '/me', headers: { authorization: 'Bearer not-a-token' } }),
    'Unauthorized.sessionRevoked': async () => {
      const leaving = await registerUser(app)
      await app.inject({ method: 'POST', url: '/logout', headers: leaving.auth })
      return errorOf({ method: 'GET', url: '/me', headers: leaving.auth })
    },
    // A typo: the last character changed, so the checksum fails.
    'Unauthorized.apiTokenInvalid': async () => {
      const { token } = await createApiToken(app, user, { scopes: ['account:read'] })
      const typo = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
      return errorOf({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${typo}` } })
    },
    'Forbidden.insufficientScope': async () => {
      const reader = await createApiToken(app, user, { scopes: ['content:read'] })
      return errorOf({ method: 'POST', url: '/posts', headers: reader.auth, payload: { title: 'A', body: 'B' } })
    },
    'Forbidden.apiTokenNotAllowed': async () =>
      errorOf({ method: 'GET', url: '/me/sessions', headers: (await createApiToken(app, user)).auth }),
    'InvalidCredentials.invalidCredentials': () =>
      errorOf({ method: 'POST', url: '/login', payload: { email: user.email, password: 'not-the-password' } }),
    'RefreshTokenInvalid.refreshTokenInvalid': () =>
      errorOf({
        method: 'POST',
        url: '/refresh',
        payload: { refreshToken: 'XrCLzcvMrt4rq5jgf8V_NPM1qRkoqv5ZMU630nxylzs' },
      }),
    'Forbidden.forbidden': () => errorOf({ method: 'GET', url: '/users', headers: user.auth }),
    'Forbidden.emailNotVerified': async () => {
      const strict = await build(t, { REQUIRE_VERIFIED_EMAIL: 'true' })
      const unverified = await registerUser(strict)
      const response = await strict.inject({
        method: 'POST',
        url: '/posts',
        headers: unverified.auth,
        payload: { title: 'A title', body: 'A body' },
      })
      return response.json().error
    },
    'Conflict.emailAlreadyVerified': async () => {
      const verified = await registerUser(app)
      await app.services.database.prisma.$executeRaw`
        update users set email_verified = true where id = ${verified.id}::uuid`
      return errorOf({ method: 'POST', url: '/email-verification', headers: verified.auth })
    },
    'BadRequest.verificationTokenInvalid': () =>
      errorOf({ method: 'POST', url: '/email-verification/confirm', payload: { token: 'x'.repeat(43) } }),
    'BadRequest.passwordResetTokenInvalid': () =>
      errorOf({
        method: 'POST',
        url: '/password-reset/confirm',
        payload: { token: 'x'.repeat(43), password: 'purple-monkey-dishwasher-42' },
      }),
    'Forbidden.currentPasswordIncorrect': () =>
      errorOf({
        method: 'PATCH',
        url: '/me',
        headers: user.auth,
        payload: { currentPassword: 'not-the-password', password: 'purple-monkey-dishwasher-42' },
      }),
    'NotFound.postNotFound': () => errorOf({ method: 'GET', url: `/posts/${unknownId}` }),
    'NotFound.commentNotFound': () =>
      errorOf({ method: 'PATCH', url: `/comments/${unknownId}`, headers: user.auth, payload: { body: 'Reworded.' } }),
    'NotFound.categoryNotFound': () =>
      errorOf({ method: 'PATCH', url: `/categories/${unknownId}`, headers: admin.auth, payload: { name: 'Renamed' } }),
    'NotFound.userNotFound': () =>
      errorOf({ method: 'PATCH', url: `/users/${unknownId}`, headers: admin.auth, payload: { role: 'admin' } }),
    'NotFound.imageNotFound': () => errorOf({ method: 'GET', url: `/images/${'0'.repeat(64)}.webp` }),
    'NotFound.thumbnailNotFound': () =>
      errorOf({ method: 'DELETE', url: `/posts/${draft.id}/thumbnail`, headers: user.auth }),
    'NotFound.mediaNotFound': () => errorOf({ method: 'GET', url: `/media/${unknownId}`, headers: user.auth }),
    'NotFound.sessionNotFound': () =>
      errorOf({ method: 'DELETE', url: `/me/sessions/${unknownId}`, headers: user.auth }),
    'NotFound.webhookNotFound': () => errorOf({ method: 'DELETE', url: `/webhooks/${unknownId}`, headers: admin.auth }),
    'BadRequest.webhookUrlForbidden': () =>
      errorOf({
        method: 'POST',
        url: '/webhooks',
        headers: admin.auth,
        payload: { url: 'https://10.0.0.5/hooks/blog', events: ['post.published'] },
      }),
    'Conflict.emailTaken': () =>
      errorOf({
        method: 'POST',
        url: '/register',
        payload: { email: user.email, password: 'correct-horse-battery-staple', name: 'Alice Martin' },
      }),
    'Conflict.categorySlugTaken': async () => {
      const slug = uniqueSlug()
      await createCategory(app, admin, { slug })
      return errorOf({
        method: 'POST',
        url: '/categories',
        headers: admin.auth,
        payload: { name: 'Photography', slug },
      })
    },
    'Conflict.categoryIsDefault': () =>
      errorOf({ method: 'DELETE', url: `/categories/${defaultCategory.id}`, headers: admin.auth }),
    'Conflict.postNotPublished': () =>
      errorOf({ method: 'POST', url: `/posts/${draft.id}/comments`, headers: user.auth, payload: { body: 'First!' } }),
    'Conflict.commentsClosed': async () => {
      const closed = await createPost(app, user, { status: 'published', commentsOpen: false })
      return errorOf({
        method: 'POST',
        url: `/posts/${closed.id}/comments`,
        headers: admin.auth,
        payload: { body: 'Hi' },
      })
    },
    'Conflict.duplicateComment': async () => {
      const { body } = await createComment(app, admin, published.id)
      return errorOf({ method: 'POST', url: `/posts/${published.id}/comments`, headers: admin.auth, payload: { body } })
    },
    // The interval is 9 s: a second comment within the same second is told 9 (ceil of what is left).
    'TooManyRequests.commentFlood': async () => {
      const flooded = await build(t, { COMMENT_MIN_INTERVAL_SECONDS: '9' })
      const [author, writer] = [await registerUser(flooded), await registerUser(flooded)]
      const post = await createPost(flooded, author, { status: 'published' })
      await createComment(flooded, writer, post.id)
      return (
        await flooded.inject({
          method: 'POST',
          url: `/posts/${post.id}/comments`,
          headers: writer.auth,
          payload: { body: 'And another thing.' },
        })
      ).json().error as ErrorBody
    },
    'Forbidden.notModerator': async () => {
      const { id } = await createComment(app, admin, published.id)
      const stranger = await registerUser(app)
      return errorOf({
        method: 'PATCH',
        url: `/comments/${id}/status`,
        headers: stranger.auth,
        payload: { status: 'hidden' },
      })
    },
    'NotFound.revisionNotFound': () =>
      errorOf({
        method: 'GET',
        url: `/posts/${published.id}/revisions/00000000-0000-7000-8000-000000000000`,
        headers: user.auth,
      }),
    'Forbidden.authorMayOnlyHide': async () => {
      const { id } = await createComment(app, admin, published.id)
      return errorOf({
        method: 'PATCH',
        url: `/comments/${id}/status`,
        headers: user.auth,
        payload: { status: 'spam' },
      })
    },
    'Conflict.postSlugTaken': () =>
      errorOf({
        method: 'PATCH',
        url: `/posts/${draft.id}`,
        headers: user.auth,
        payload: { slug: published.slug },
      }),
    'PreconditionFailed.preconditionFailed': () =>
      errorOf({
        method: 'PATCH',
        url: `/posts/${draft.id}`,
        headers: { ...user.auth, 'if-match': '"an-older-version"' },
        payload: { title: 'Retitled' },
      }),
    'PayloadTooLarge.payloadTooLarge': () =>
      errorOf({
        method: 'POST',
        url: '/login',
        payload: { email: 'alice@example.com', password: 'a'.repeat(1_100_000) },
      }),
    'UnsupportedMediaType.unsupportedMediaType': () =>
      errorOf({
        method: 'POST',
        url: '/login',
        headers: { 'content-type': 'text/plain' },
        payload: 'alice@example.com correct-horse-battery-staple',
      }),
    'UnsupportedMediaType.imageUnsupportedType': () => upload('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    'UnprocessableContent.categoryNotFound': () =>
      errorOf({
        method: 'POST',
        url: '/posts',
        headers: user.auth,
        payload: { title: 'A title', body: 'A body.', categoryIds: [defaultCategory.id, unknownId] },
      }),
    'UnprocessableContent.parentCommentInvalid': async () => {
      const reply = await createComment(app, user, published.id, {
        parentId: (await createComment(app, user, published.id)).id,
      })
      return errorOf({
        method: 'POST',
        url: `/posts/${published.id}/comments`,
        headers: user.auth,
        payload: { body: 'A reply to a reply.', parentId: reply.id },
      })
    },
    'UnprocessableContent.imageTooManyPixels': async () => upload(await pngClaiming(20_000, 20_000)),
    'UnprocessableContent.imageInvalid': async () => upload(await pngClaiming(640, 480)),
    'UnprocessableContent.imageBadDimensions': async () => upload(await pngClaiming(1, 40_000_000)),
    'UnprocessableContent.imageMetadataTooLarge': async () => upload(await pngWithTextChunks(65)),
  }

  // Answers only handlers that fail can give: one unfinished, one with a bug, one whose database
  // cannot serve now (PostgreSQL's cannot_connect_now, raised by the database itself).
  const failing = await build(
    t,
    {},
    {
      internalErrorsExpected: true,
      handlers: {
        ...handlers,
        ping: notImplemented('ping'),
        getHealth: async () => Promise.reject(new Error('a bug')),
        getMetrics: async (request) => {
          await request.server.services.database.prisma.$executeRawUnsafe(
            `do $$ begin raise exception 'starting up' using errcode = '57P03'; end $$`,
          )
          return undefined
        },
      },
    },
  )
  const failed = async (url: string) => (await failing.inject({ method: 'GET', url })).json().error as ErrorBody
  replays['UnexpectedError.notImplemented'] = () => failed('/ping')
  replays['UnexpectedError.internalError'] = () => failed('/health')
  replays['UnexpectedError.serviceUnavailable'] = () => failed('/metrics')

  const examples = errorExamples()
  t.ok(examples.size > 30, `${examples.size} error examples`)
  for (const [name, example] of examples) {
    const replay = replays[name]
    if (replay === undefined) {
      t.ok(name in NOT_REPLAYED, `${name}: replayed here, or listed in NOT_REPLAYED with the reason`)
      continue
    }
    t.same(await replay(), example, name)
  }
  const stale = [...Object.keys(replays), ...Object.keys(NOT_REPLAYED)].filter((name) => !examples.has(name))
  t.same(stale, [], 'every replay and every reason names an example the spec still has')
})
