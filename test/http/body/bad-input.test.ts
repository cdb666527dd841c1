// Inputs the schema lets through but the database or the date code cannot take: each is a 400
// VALIDATION_FAILED naming the field, never a 500.
import t, { type Test } from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, uniqueEmail } from '../../helpers/accounts.ts'
import { createCategory, createComment } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

type Response = { statusCode: number; json(): { error: { code: string; details: { path: string; code?: string }[] } } }

function refused(t: Test, response: Response, path: string) {
  t.equal(response.statusCode, 400, `400 for ${path}`)
  const { error } = response.json()
  t.equal(error.code, 'VALIDATION_FAILED')
  t.ok(
    error.details.some((detail) => detail.path === path),
    `details name ${path}: ${JSON.stringify(error.details)}`,
  )
  return error
}

t.test('bad inputs → 400 VALIDATION_FAILED on the field', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const admin = await registerAdmin(app)
  const post = await createPost(app, user, { status: 'published' })
  await createComment(app, user, post.id)
  const category = await createCategory(app, admin)

  t.test('a NUL character in a body string or a query parameter', async (t) => {
    const nul = 'a\u0000b'
    const register = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { email: uniqueEmail(), password: 'pw-long-enough-1', name: nul },
    })
    const error = refused(t, register, '/body/name')
    t.match(error.details, [{ code: 'noNulCharacter' }])
    refused(
      t,
      await app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: nul, body: 'fine' } }),
      '/body/title',
    )
    refused(
      t,
      await app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: 'fine', body: nul } }),
      '/body/body',
    )
    refused(
      t,
      await app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { name: nul } }),
      '/body/name',
    )
    refused(
      t,
      await app.inject({
        method: 'POST',
        url: `/posts/${post.id}/comments`,
        headers: user.auth,
        payload: { body: nul },
      }),
      '/body/body',
    )
    refused(
      t,
      await app.inject({
        method: 'PATCH',
        url: `/categories/${category.id}`,
        headers: admin.auth,
        payload: { name: nul },
      }),
      '/body/name',
    )
    refused(t, await app.inject({ method: 'GET', url: '/posts?q=a%00b' }), '/query/q')
  })

  t.test('a limit that coerces to an infinite number', async (t) => {
    for (const limit of ['Infinity', '1e400', '-1e400']) {
      refused(t, await app.inject({ method: 'GET', url: `/posts?limit=${limit}` }), '/query/limit')
      refused(t, await app.inject({ method: 'GET', url: `/categories?limit=${limit}` }), '/query/limit')
      refused(t, await app.inject({ method: 'GET', url: `/posts/${post.id}/comments?limit=${limit}` }), '/query/limit')
      refused(t, await app.inject({ method: 'GET', url: `/users?limit=${limit}`, headers: admin.auth }), '/query/limit')
    }
  })

  t.test('a leap second as publishedAt', async (t) => {
    const leap = '2099-06-30T23:59:60Z'
    const create = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: user.auth,
      payload: { title: 'Later', body: 'Soon.', status: 'scheduled', publishedAt: leap },
    })
    refused(t, create, '/body/publishedAt')
    const update = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: user.auth,
      payload: { status: 'scheduled', publishedAt: leap },
    })
    refused(t, update, '/body/publishedAt')
  })

  t.test(
    'publishedAt with a status other than scheduled, or missing with scheduled: one detail, on the field',
    async (t) => {
      const later = new Date(Date.now() + 3_600_000).toISOString()
      const onlyPublishedAt = (response: Response) =>
        t.match(
          response.json().error.details,
          [{ path: '/body/publishedAt', message: /scheduled/ }],
          'names the field and why',
        )
      const draft = await createPost(app, user)
      const attempts = [
        app.inject({
          method: 'POST',
          url: '/posts',
          headers: user.auth,
          payload: { title: 'T', body: 'B', publishedAt: later },
        }),
        app.inject({
          method: 'POST',
          url: '/posts',
          headers: user.auth,
          payload: { title: 'T', body: 'B', status: 'draft', publishedAt: later },
        }),
        app.inject({
          method: 'POST',
          url: '/posts',
          headers: user.auth,
          payload: { title: 'T', body: 'B', status: 'published', publishedAt: later },
        }),
        app.inject({ method: 'PATCH', url: `/posts/${draft.id}`, headers: user.auth, payload: { publishedAt: later } }),
        app.inject({
          method: 'PATCH',
          url: `/posts/${post.id}`,
          headers: user.auth,
          payload: { status: 'draft', publishedAt: later },
        }),
      ]
      for (const response of await Promise.all(attempts)) {
        refused(t, response, '/body/publishedAt')
        onlyPublishedAt(response)
        t.equal(response.json().error.details.length, 1, 'and nothing else')
      }
      const missing = await app.inject({
        method: 'POST',
        url: '/posts',
        headers: user.auth,
        payload: { title: 'T', body: 'B', status: 'scheduled' },
      })
      refused(t, missing, '/body/publishedAt')
      t.equal(missing.json().error.details.length, 1, 'scheduled without publishedAt: only the missing field')
    },
  )

  t.test('text of blanks only, where the text is what the resource says', async (t) => {
    const comment = await createComment(app, user, post.id)
    for (const blank of ['   ', '\t\r\n', '\u00a0\u3000']) {
      const attempts: [Promise<Response>, string][] = [
        [
          app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: blank, body: 'B' } }),
          '/body/title',
        ],
        [
          app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: 'T', body: blank } }),
          '/body/body',
        ],
        [
          app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: user.auth, payload: { title: blank } }),
          '/body/title',
        ],
        [
          app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: user.auth, payload: { body: blank } }),
          '/body/body',
        ],
        [
          app.inject({
            method: 'POST',
            url: `/posts/${post.id}/comments`,
            headers: user.auth,
            payload: { body: blank },
          }),
          '/body/body',
        ],
        [
          app.inject({ method: 'PATCH', url: `/comments/${comment.id}`, headers: user.auth, payload: { body: blank } }),
          '/body/body',
        ],
        [
          app.inject({ method: 'POST', url: '/categories', headers: admin.auth, payload: { name: blank } }),
          '/body/name',
        ],
        [
          app.inject({
            method: 'PATCH',
            url: `/categories/${category.id}`,
            headers: admin.auth,
            payload: { name: blank },
          }),
          '/body/name',
        ],
        [
          app.inject({
            method: 'POST',
            url: '/register',
            payload: { email: uniqueEmail(), password: 'a long enough password', name: blank },
          }),
          '/body/name',
        ],
        [app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { name: blank } }), '/body/name'],
      ]
      for (const [response, path] of attempts)
        t.match(
          refused(t, await response, path).details,
          [{ path, message: 'must not be blank' }],
          JSON.stringify(blank),
        )
    }
    // Text around blanks is text: only its surroundings go (category names) or nothing does.
    t.equal(
      (
        await app.inject({
          method: 'POST',
          url: `/posts/${post.id}/comments`,
          headers: user.auth,
          payload: { body: '  ok  ' },
        })
      ).json().data.body,
      '  ok  ',
    )
  })

  t.test('a path id over 100 characters: the schema answers, not the router (414)', async (t) => {
    for (const length of [101, 1_000, 10_000]) {
      const id = 'a'.repeat(length)
      refused(t, await app.inject({ method: 'GET', url: `/posts/${id}` }), '/params/id')
      refused(
        t,
        await app.inject({ method: 'PATCH', url: `/comments/${id}`, headers: user.auth, payload: { body: 'B' } }),
        '/params/id',
      )
      refused(t, await app.inject({ method: 'GET', url: `/images/${id}` }), '/params/key')
      refused(t, await app.inject({ method: 'DELETE', url: `/categories/${id}`, headers: admin.auth }), '/params/id')
    }
  })

  t.test('a cursor carrying a date outside years 1 to 9999', async (t) => {
    const id = '0192f7c4-5a2b-7c3d-8e4f-123456789abc'
    for (const iso of [
      '-004714-01-01T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '2025-01-01',
    ]) {
      const cursor = Buffer.from(`${iso}|${id}`).toString('base64url')
      refused(t, await app.inject({ method: 'GET', url: `/posts?cursor=${cursor}` }), '/query/cursor')
      refused(
        t,
        await app.inject({ method: 'GET', url: `/posts/${post.id}/comments?cursor=${cursor}` }),
        '/query/cursor',
      )
    }
    // The cursors the API issues still work.
    const valid = Buffer.from(`${new Date().toISOString()}|${id}`).toString('base64url')
    t.equal((await app.inject({ method: 'GET', url: `/posts?cursor=${valid}` })).statusCode, 200)
  })
})
