// Media with API tokens: content:write uploads, changes and deletes; content:read lists and reads;
// each refused for the other scope with 403 INSUFFICIENT_SCOPE. (The scope table in
// test/auth/api-tokens/ tries every scope on every operation; this follows one item through.)
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { solidImage } from '../../helpers/images.ts'
import { uploadMedia } from '../../helpers/media.ts'

t.test('a writer token uploads, a reader token reads; neither does the other’s work', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const writer = await createApiToken(app, owner, { name: 'writer', scopes: ['content:write'] })
  const reader = await createApiToken(app, owner, { name: 'reader', scopes: ['content:read'] })
  const png = await solidImage(200, 100, 'png')

  const refused = await uploadMedia(app, reader.auth, png)
  t.same([refused.statusCode, refused.json().error.code], [403, 'INSUFFICIENT_SCOPE'])
  t.equal(refused.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="content:write"')

  const uploaded = await uploadMedia(app, writer.auth, png)
  t.equal(uploaded.statusCode, 201, uploaded.body)
  const item = uploaded.json().data
  t.equal(item.ownerId, owner.id, 'the token acts as its owner')

  const listed = await app.inject({ method: 'GET', url: '/media', headers: reader.auth })
  t.same(
    listed.json().data.map((entry: { id: string }) => entry.id),
    [item.id],
  )
  const read = await app.inject({ method: 'GET', url: `/media/${item.id}`, headers: reader.auth })
  t.equal(read.statusCode, 200)
  const listedByWriter = await app.inject({ method: 'GET', url: '/media', headers: writer.auth })
  t.same([listedByWriter.statusCode, listedByWriter.json().error.code], [403, 'INSUFFICIENT_SCOPE'])

  const patched = await app.inject({
    method: 'PATCH',
    url: `/media/${item.id}`,
    headers: writer.auth,
    payload: { alt: 'From CI' },
  })
  t.equal(patched.json().data.alt, 'From CI')
  const deleteByReader = await app.inject({ method: 'DELETE', url: `/media/${item.id}`, headers: reader.auth })
  t.same([deleteByReader.statusCode, deleteByReader.json().error.code], [403, 'INSUFFICIENT_SCOPE'])
  const deleted = await app.inject({ method: 'DELETE', url: `/media/${item.id}`, headers: writer.auth })
  t.equal(deleted.statusCode, 204)
})
