// What the fuzz test (test/contract/fuzz.test.ts) sends requests about: accounts of each role and
// content they own, made over HTTP as clients make them, fresh for each operation (the fuzzer
// deletes posts, ends sessions and renames things). Their ids, credentials, ETags, cursors and image
// keys become the hints the generated requests draw from.
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { registerAdmin, registerUser, type Account } from './accounts.ts'
import { createCategory, createComment } from './content.ts'
import type { Hints } from './fuzz-values.ts'
import { pngClaiming, solidImage, uploadThumbnail } from './images.ts'
import { createMedia } from './media.ts'
import { createPost } from './posts.ts'

export interface Fixtures {
  accounts: { author: Account; other: Account; admin: Account }
  hints: Hints
}

const later = () => new Date(Date.now() + 86_400_000).toISOString()

async function nextCursor(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const cursor = (await app.inject({ method: 'GET', url, headers })).json().meta?.page?.nextCursor
  return typeof cursor === 'string' ? [cursor] : []
}

export async function makeFixtures(app: FastifyInstance, images: Buffer[]): Promise<Fixtures> {
  const [author, other, admin] = await Promise.all([
    registerUser(app, 'fuzz-author'),
    registerUser(app, 'fuzz-other'),
    registerAdmin(app),
  ])
  // Media items of two owners, the author's shown by a published post (its body refers to it).
  const media = [await createMedia(app, author.auth, { width: 64 }), await createMedia(app, other.auth, { width: 64 })]
  const [category, published, draft, scheduled, othersPost] = await Promise.all([
    createCategory(app, admin),
    createPost(app, author, { status: 'published', body: `A picture: ![a photo](${media[0]!.url})` }),
    createPost(app, author),
    createPost(app, author, { status: 'scheduled', publishedAt: later() }),
    createPost(app, other, { status: 'published' }),
  ])
  const [comment, withThumbnail, etags] = await Promise.all([
    createComment(app, other, published.id),
    uploadThumbnail(app, published.id, author.auth, images[0]!),
    Promise.all(
      [othersPost.id, draft.id].map(async (id) =>
        String((await app.inject({ method: 'GET', url: `/posts/${id}`, headers: admin.auth })).headers.etag),
      ),
    ),
  ])
  // Comments in each status besides published, for the moderation operations to find and change
  // (listCommentsForModeration's queue, moderateComment's transitions): other's, on the author's post.
  const held = await Promise.all(
    (['pending', 'hidden', 'spam'] as const).map(async (status) => {
      const { id } = await createComment(app, other, published.id)
      const set = await app.inject({
        method: 'PATCH',
        url: `/comments/${id}/status`,
        headers: admin.auth,
        payload: { status },
      })
      if (set.statusCode !== 200) throw new Error(`moderateComment: ${set.statusCode} ${set.body}`)
      return id
    }),
  )
  const [reply, categories, ...cursors] = await Promise.all([
    createComment(app, author, published.id, { parentId: comment.id }),
    app
      .inject({ method: 'GET', url: '/categories?limit=100' })
      .then((response) => response.json().data as { id: string; slug: string }[]),
    nextCursor(app, '/posts?limit=1'),
    nextCursor(app, '/categories?limit=1'),
    nextCursor(app, '/users?limit=1', admin.auth),
    nextCursor(app, `/posts/${published.id}/comments?limit=1`),
    nextCursor(app, '/media?limit=1', admin.auth),
    nextCursor(app, `/posts/${published.id}/revisions?limit=1`, admin.auth),
    nextCursor(app, `/comments?postId=${published.id}&status=published&limit=1`, admin.auth),
  ])
  // Revisions of the author's posts and of another's: the fuzzer restores and reads them.
  const revisionIds = await Promise.all(
    [published, draft, othersPost].map(async (post) => {
      const listed = await app.inject({ method: 'GET', url: `/posts/${post.id}/revisions`, headers: admin.auth })
      return (listed.json().data as { id: string }[]).map((revision) => revision.id)
    }),
  )
  const imageKeys = (withThumbnail.json().data.thumbnail?.sizes ?? []).map((size: { url: string }) =>
    size.url.slice('/images/'.length),
  )
  const accounts = [author, other, admin]
  const postIds = [published.id, draft.id, scheduled.id, othersPost.id]
  const categoryIds = [
    category.id,
    ...categories
      .map((entry) => entry.id)
      .filter((id) => id !== category.id)
      .slice(0, 5),
  ]
  return {
    accounts: { author, other, admin },
    hints: {
      PostId: postIds,
      CommentId: [comment.id, reply.id, ...held],
      CategoryId: categoryIds,
      UserId: accounts.map((account) => account.id),
      ImageKey: [...imageKeys, ...media.map((item) => item.url.slice('/images/'.length))],
      MediaId: media.map((item) => item.id),
      RevisionId: revisionIds.flat(),
      owner: accounts.map((account) => account.id),
      slug: [published, draft, scheduled, othersPost].map((post) => post.slug as string),
      categoryIds,
      parentId: [comment.id, reply.id],
      author: accounts.map((account) => account.id),
      // listCommentsForModeration's filters.
      postId: postIds,
      authorId: accounts.map((account) => account.id),
      category: [category.slug, ...categories.slice(0, 5).map((entry) => entry.slug), ...categoryIds],
      cursor: cursors.flat(),
      email: accounts.map((account) => account.email),
      password: accounts.map((account) => account.password),
      currentPassword: accounts.map((account) => account.password),
      refreshToken: accounts.map((account) => account.refreshToken),
      'If-Match': etags,
      'If-None-Match': etags,
      'If-Modified-Since': [new Date(Date.now() + 86_400_000).toUTCString(), new Date(0).toUTCString()],
    },
  }
}

/** Small images that decode, one per accepted format. */
export const decodableImages = () =>
  Promise.all([
    solidImage(64, 48, 'jpeg'),
    solidImage(40, 40, 'png'),
    solidImage(300, 20, 'webp'),
    solidImage(8, 8, 'gif'),
    solidImage(16, 16, 'avif'),
  ])

/**
 * Files to be refused or processed at a bounded cost: headers that lie about their size, a thin
 * image, SVG, a polyglot, text.
 */
export async function refusableFiles(): Promise<Buffer[]> {
  const thin = await sharp({ create: { width: 1, height: 200_000, channels: 3, background: '#000' } })
    .png()
    .toBuffer()
  return [
    await pngClaiming(100_000, 100_000),
    await pngClaiming(1, 40_000_000),
    await pngClaiming(0, 0),
    thin,
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
    Buffer.concat([Buffer.from('GIF89a'), Buffer.from('<script>alert(1)</script>')]),
    Buffer.from('just text, not an image'),
    Buffer.alloc(0),
  ]
}
