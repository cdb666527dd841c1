// The journey through openapi-zod-client's Zodios client: each call returns the answer's body,
// checked against its zod schema; an error status throws, its body typed by isErrorFromAlias.
// listPosts filters by category, by slug and by id: the parameter whose schema this generator
// could not compile (`type` and bounds beside an `anyOf`).
import { isErrorFromAlias } from '@zodios/core'
import { createApiClient } from './client/api.ts'
import { baseUrl, check, newAccount, unknownPostId } from './kit.ts'

const client = createApiClient(baseUrl)

const registered = await client.register(newAccount())
const { accessToken, user } = registered.data
const signedIn = { headers: { authorization: `Bearer ${accessToken}` } }

const ids: string[] = []
for (const title of ['First', 'Second']) {
  const created = await client.createPost({ title, body: 'Written through Zodios.', status: 'published' }, signedIn)
  ids.push(created.data.id)
}
const created = await client.getPost({ params: { id: ids[0]! } })
const category = created.data.categories[0]!

const first = await client.listPosts({ queries: { author: user.id, limit: 1 } })
const cursor = first.meta.page.nextCursor
check(cursor, 'listPosts: a first page of one with a cursor')
const second = await client.listPosts({ queries: { author: user.id, limit: 1, cursor } })
const listed = [...first.data, ...second.data].map((post) => post.id)
check(
  listed.length === 2 && ids.every((id) => listed.includes(id)),
  `listPosts: both posts over two pages (${listed.join(', ')})`,
)

for (const given of [category.slug, category.id]) {
  const filed = await client.listPosts({ queries: { author: user.id, category: given } })
  check(filed.data.length === 2, `listPosts by category ${given}: ${filed.data.length} post(s)`)
}

try {
  await client.getPost({ params: { id: unknownPostId } })
  check(false, 'getPost on an unknown id: answered')
} catch (error) {
  // Typed by status, 304 (no body) among them.
  const body = isErrorFromAlias(client.api, 'getPost', error) ? error.response.data : undefined
  check(
    typeof body === 'object' && body !== null && body.error.code === 'POST_NOT_FOUND',
    `getPost on an unknown id: ${String(error)}`,
  )
}
