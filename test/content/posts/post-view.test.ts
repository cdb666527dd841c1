// A post's ETag, without the app: strong, stable for the same representation, and changed by a
// change to any field the client sees.
import t from 'tap'
import { etagOf, POST_KEYS, toPost, type Post } from '../../../src/content/posts/post-view.ts'
import type { PostRecord } from '../../../src/content/posts/post-store.ts'

const post: Post = {
  id: '0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f',
  title: 'Autumn in the Engadin',
  body: 'Larches turn gold.',
  excerpt: 'Larches turn gold.',
  status: 'published',
  publishedAt: '2030-10-01T07:00:00.000Z',
  author: { id: '0192f7c4-5a2b-7c3d-8e4f-123456789abc', name: 'Alice Martin' },
  categories: [{ id: '0192f7b0-3c4d-7e5f-9a0b-c1d2e3f4a5b6', name: 'Travel', slug: 'travel' }],
  thumbnail: null,
  commentCount: 0,
  createdAt: '2030-09-01T07:00:00.000Z',
  updatedAt: '2030-09-01T07:00:00.000Z',
}

t.test('a strong, quoted tag, the same for the same representation', async (t) => {
  t.match(etagOf(post), /^"[A-Za-z0-9_-]{32}"$/)
  t.equal(etagOf(structuredClone(post)), etagOf(post))
})

t.test('any field the client sees changes the tag', async (t) => {
  const changes: Partial<Post>[] = [
    { id: '0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e40' },
    { createdAt: '2030-09-01T07:00:00.001Z' },
    { author: { ...post.author, id: '0192f7c4-5a2b-7c3d-8e4f-123456789abd' } },
    { title: 'Autumn in the Engadin!' },
    { body: 'Larches turn gold!' },
    { excerpt: 'Larches.' },
    { status: 'draft' },
    { publishedAt: null },
    { author: { ...post.author, name: 'Alice M.' } },
    { categories: [] },
    { thumbnail: { sizes: [{ width: 320, height: 180, url: '/images/a.webp', contentType: 'image/webp' }] } },
    { mediaIds: ['0192f7e9-1c2d-7e3f-8a4b-5c6d7e8f9a0b'] },
    { commentCount: 1 },
    { commentsOpen: false },
    { updatedAt: '2030-09-01T07:00:00.001Z' },
  ]
  t.equal(new Set([post, ...changes.map((change) => ({ ...post, ...change }))].map(etagOf)).size, changes.length + 1)
})

t.test('toPost writes every property in POST_KEYS order, the order the list SQL writes them', async (t) => {
  const record: PostRecord = {
    id: post.id,
    title: post.title,
    body: post.body,
    html: '<p>Larches turn gold.</p>',
    excerpt: post.excerpt,
    status: 'published',
    publishedAt: new Date(post.publishedAt!),
    publishJobId: null,
    commentsOpen: true,
    authorId: post.author.id,
    author: post.author,
    categories: [{ category: post.categories[0]! }],
    thumbnail: [],
    media: [],
    commentCount: 0,
    slug: 'autumn-in-the-engadin',
    createdAt: new Date(post.createdAt),
    updatedAt: new Date(post.updatedAt),
  }
  t.same(Object.keys(toPost(record, '')), POST_KEYS)
})
