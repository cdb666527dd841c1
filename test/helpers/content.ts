// Posts for comment and category tests, made over HTTP as clients make them, and what the
// database says about them.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'
import { createPost } from './posts.ts'

type PostStatus = 'draft' | 'scheduled' | 'published'

export async function createPostRecord(
  app: FastifyInstance,
  options: { author: Account; status?: PostStatus; categoryIds?: string[] },
) {
  const status = options.status ?? 'published'
  const publishedAt = status === 'scheduled' ? { publishedAt: new Date(Date.now() + 86_400_000).toISOString() } : {}
  const post = await createPost(app, options.author, {
    status,
    ...publishedAt,
    ...(options.categoryIds ? { categoryIds: options.categoryIds } : {}),
  })
  return { id: post.id, authorId: options.author.id, status }
}

/** The post's comment count as stored, and the published comments that really exist: they must agree. */
export async function commentCounts(app: FastifyInstance, postId: string) {
  const { prisma } = app.services.database
  const [post, actual] = await Promise.all([
    prisma.post.findUniqueOrThrow({ where: { id: postId }, select: { commentCount: true } }),
    prisma.comment.count({ where: { postId, status: 'published' } }),
  ])
  return { stored: post.commentCount, actual }
}

export const categoryIdsOf = async (app: FastifyInstance, postId: string) =>
  (await app.services.database.prisma.postCategory.findMany({ where: { postId }, select: { categoryId: true } }))
    .map((row) => row.categoryId)
    .sort()

/** A slug no other test (or earlier run on the shared Postgres) has used. */
export const uniqueSlug = (label = 'cat') => `${label}-${randomUUID().slice(0, 8)}`

export async function createCategory(
  app: FastifyInstance,
  admin: Account,
  payload: { name?: string; slug?: string } = {},
) {
  const slug = payload.slug ?? uniqueSlug()
  const response = await app.inject({
    method: 'POST',
    url: '/categories',
    headers: admin.auth,
    payload: { name: payload.name ?? `Category ${slug}`, slug },
  })
  if (response.statusCode !== 201) throw new Error(`createCategory: ${response.statusCode} ${response.body}`)
  return response.json().data as { id: string; name: string; slug: string; isDefault: boolean }
}

export async function createComment(
  app: FastifyInstance,
  author: Account,
  postId: string,
  payload: { body?: string; parentId?: string } = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: `/posts/${postId}/comments`,
    headers: author.auth,
    // Each its own body by default: the same body twice on one post is 409 DUPLICATE_COMMENT.
    payload: { body: `A comment (${randomUUID().slice(0, 8)}).`, ...payload },
  })
  if (response.statusCode !== 201) throw new Error(`createComment: ${response.statusCode} ${response.body}`)
  return response.json().data as { id: string; postId: string; parentId: string | null; body: string }
}
