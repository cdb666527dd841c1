// The journey through orval's fetch client: each answer is `{ status, data }`, `data` typed by status.
import {
  createApiToken,
  createPost,
  getFeed,
  getImage,
  getPost,
  listPosts,
  register,
  uploadPostThumbnail,
} from './client/api.ts'
import { check, imageKey, newAccount, photo, unknownPostId } from './kit.ts'

const registered = await register(newAccount())
check(registered.status === 201, `register: ${registered.status}`)
const { accessToken, user } = registered.data.data
const signedIn = { headers: { authorization: `Bearer ${accessToken}` } }

const ids: string[] = []
for (const title of ['First', 'Second']) {
  const created = await createPost({ title, body: 'Written through orval.', status: 'published' }, signedIn)
  check(created.status === 201, `createPost: ${created.status}`)
  ids.push(created.data.data.id)
}

const uploaded = await uploadPostThumbnail(ids[0]!, { file: photo() }, signedIn)
check(uploaded.status === 200 && uploaded.data.data.thumbnail, `uploadPostThumbnail: ${uploaded.status}`)

const downloaded = await getImage(imageKey(uploaded.data.data.thumbnail.sizes[0]!.url))
check(downloaded.status === 200, `getImage: ${downloaded.status}`)
const image: Blob = downloaded.data
check(image.size > 0 && image.type === 'image/webp', `getImage: a WebP Blob, not ${image.type}`)

const feed = await getFeed()
check(feed.status === 200, `getFeed: ${feed.status}`)
const atom: string = feed.data
check(atom.includes(`urn:uuid:${ids[1]}`), 'getFeed: the Atom text with the new post')

const first = await listPosts({ author: user.id, limit: 1 })
check(
  first.status === 200 && first.data.meta.page.nextCursor,
  `listPosts: a first page of one with a cursor (${first.status})`,
)
const second = await listPosts({ author: user.id, limit: 1, cursor: first.data.meta.page.nextCursor })
check(second.status === 200, `listPosts: the second page (${second.status})`)
const listed = [...first.data.data, ...second.data.data].map((post) => post.id)
check(
  listed.length === 2 && ids.every((id) => listed.includes(id)),
  `listPosts: both posts over two pages (${listed.join(', ')})`,
)

const missing = await getPost(unknownPostId)
check(
  missing.status === 404 && missing.data.error.code === 'POST_NOT_FOUND',
  `getPost on an unknown id: ${missing.status}`,
)

// An integration: an API token made with the session, then sent in its place for a write and a read.
const made = await createApiToken({ name: 'SDK check', scopes: ['content:read', 'content:write'] }, signedIn)
check(made.status === 201, `createApiToken: ${made.status}`)
const withToken = { headers: { authorization: `Bearer ${made.data.data.token}` } }
const written = await createPost({ title: 'By a token', body: 'Written with an API token.' }, withToken)
check(written.status === 201 && written.data.data.author.id === user.id, `createPost with the token: ${written.status}`)
const draft = await getPost(written.data.data.id, withToken)
check(
  draft.status === 200 && draft.data.data.status === 'draft',
  `getPost of the draft with the token: ${draft.status}`,
)
