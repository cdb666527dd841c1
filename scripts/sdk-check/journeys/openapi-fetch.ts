// The journey through openapi-fetch, typed by openapi-typescript's `paths`.
import createClient from 'openapi-fetch'
import type { paths } from './client/api.ts'
import { baseUrl, check, imageKey, newAccount, photo, unknownPostId } from './kit.ts'

const anonymous = createClient<paths>({ baseUrl })
const registered = await anonymous.POST('/register', { body: newAccount() })
check(registered.data, `register: ${registered.response.status}`)
const { accessToken, user } = registered.data.data
const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${accessToken}` } })

const ids: string[] = []
for (const title of ['First', 'Second']) {
  const created = await api.POST('/posts', {
    body: { title, body: 'Written through openapi-fetch.', status: 'published' },
  })
  check(created.data, `createPost: ${created.response.status}`)
  ids.push(created.data.data.id)
}

// openapi-fetch sends JSON unless given a serializer; the body's type is the spec's, a Blob.
const uploaded = await api.PUT('/posts/{id}/thumbnail', {
  params: { path: { id: ids[0]! } },
  body: { file: photo() },
  bodySerializer: ({ file }) => {
    const form = new FormData()
    form.append('file', file)
    return form
  },
})
check(uploaded.data?.data.thumbnail, `uploadPostThumbnail: ${uploaded.response.status}`)

const downloaded = await anonymous.GET('/images/{key}', {
  params: { path: { key: imageKey(uploaded.data.data.thumbnail.sizes[0]!.url) } },
  parseAs: 'blob',
})
const image: Blob | undefined = downloaded.data
check(image && image.size > 0 && image.type === 'image/webp', `getImage: ${downloaded.response.status} ${image?.type}`)

// openapi-fetch parses JSON unless told: the feed is text.
const feed = await anonymous.GET('/feed.atom', { parseAs: 'text' })
const atom: string | undefined = feed.data
check(atom?.includes(`urn:uuid:${ids[1]}`), `getFeed: the Atom text with the new post (${feed.response.status})`)

const first = await anonymous.GET('/posts', { params: { query: { author: user.id, limit: 1 } } })
const cursor = first.data?.meta.page.nextCursor
check(cursor, `listPosts: a first page of one with a cursor (${first.response.status})`)
const second = await anonymous.GET('/posts', { params: { query: { author: user.id, limit: 1, cursor } } })
const listed = [...(first.data?.data ?? []), ...(second.data?.data ?? [])].map((post) => post.id)
check(
  listed.length === 2 && ids.every((id) => listed.includes(id)),
  `listPosts: both posts over two pages (${listed.join(', ')})`,
)

const missing = await anonymous.GET('/posts/{id}', { params: { path: { id: unknownPostId } } })
check(
  missing.error?.error.code === 'POST_NOT_FOUND',
  `getPost on an unknown id: ${missing.response.status} ${missing.error?.error.code}`,
)
