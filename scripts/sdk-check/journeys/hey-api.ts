// The journey through @hey-api/openapi-ts's SDK functions and its fetch client.
import { client } from './client/client.gen.ts'
import {
  createApiToken,
  createPost,
  getCurrentUser,
  getFeed,
  getImage,
  getPost,
  listPosts,
  register,
  uploadPostThumbnail,
} from './client/index.ts'
import { baseUrl, check, imageKey, newAccount, photo, unknownPostId } from './kit.ts'

client.setConfig({ baseUrl })
const registered = await register({ body: newAccount() })
check(registered.data, `register: ${registered.response.status}`)
const { accessToken, user } = registered.data.data
// Sent as a bearer token to the operations whose security asks for one.
client.setConfig({ auth: accessToken })

const ids: string[] = []
for (const title of ['First', 'Second']) {
  const created = await createPost({ body: { title, body: 'Written through hey-api.', status: 'published' } })
  check(created.data, `createPost: ${created.response.status}`)
  ids.push(created.data.data.id)
}

const uploaded = await uploadPostThumbnail({ path: { id: ids[0]! }, body: { file: photo() } })
check(uploaded.data?.data.thumbnail, `uploadPostThumbnail: ${uploaded.response.status}`)

const downloaded = await getImage({ path: { key: imageKey(uploaded.data.data.thumbnail.sizes[0]!.url) } })
const image: Blob | undefined = downloaded.data
check(image && image.size > 0 && image.type === 'image/webp', `getImage: ${downloaded.response.status} ${image?.type}`)

// hey-api reads every application/* body as a Blob unless told: the feed is text.
const feed = await getFeed({ parseAs: 'text' })
const atom: string | undefined = feed.data
check(atom?.includes(`urn:uuid:${ids[1]}`), `getFeed: the Atom text with the new post (${feed.response.status})`)

const first = await listPosts({ query: { author: user.id, limit: 1 } })
const cursor = first.data?.meta.page.nextCursor
check(cursor, `listPosts: a first page of one with a cursor (${first.response.status})`)
const second = await listPosts({ query: { author: user.id, limit: 1, cursor } })
const listed = [...(first.data?.data ?? []), ...(second.data?.data ?? [])].map((post) => post.id)
check(
  listed.length === 2 && ids.every((id) => listed.includes(id)),
  `listPosts: both posts over two pages (${listed.join(', ')})`,
)

const missing = await getPost({ path: { id: unknownPostId } })
check(
  missing.error?.error.code === 'POST_NOT_FOUND',
  `getPost on an unknown id: ${missing.response.status} ${missing.error?.error.code}`,
)

// An integration: an API token made with the session, then sent instead of it (the `apiToken`
// scheme is a bearer scheme too, so the client's `auth` carries it), for a write and a read.
const made = await createApiToken({ body: { name: 'SDK check', scopes: ['content:read', 'content:write'] } })
check(made.data, `createApiToken: ${made.response.status}`)
check(made.data.data.token.startsWith('blog_'), `createApiToken: a token of the documented form`)
client.setConfig({ auth: made.data.data.token })
const written = await createPost({ body: { title: 'By a token', body: 'Written with an API token.', status: 'draft' } })
check(written.data?.data.author.id === user.id, `createPost with the API token: ${written.response.status}`)
const draft = await getPost({ path: { id: written.data.data.id } })
check(draft.data?.data.status === 'draft', `getPost of the draft with the API token: ${draft.response.status}`)
const me = await getCurrentUser()
check(
  me.error?.error.code === 'INSUFFICIENT_SCOPE',
  `getCurrentUser without account:read: ${me.response.status} ${me.error?.error.code}`,
)
