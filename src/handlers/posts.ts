// Tag `posts`.
import { success, successBytes } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'
import { etagOf } from '../content/posts/post-view.ts'
import { ifNoneMatchHits } from '../http/headers/conditional.ts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CachedPost } from '../content/posts/post-cache.ts'

/** Public pages come from the list cache; every page is built as JSON by the database, never serialised here. */
export const listPosts: OperationHandler<'listPosts'> = async (request, reply) => {
  const { bytes, pageBytes, etag } = await request.server.services.posts.list(request.principal, request.query)
  reply.header('etag', etag)
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
    reply.code(304)
    return undefined
  }
  reply.type('application/json; charset=utf-8')
  // The handler's type is the parsed envelope; the bytes are that envelope, already serialised.
  return successBytes(request, bytes, pageBytes) as unknown as Awaited<ReturnType<OperationHandler<'listPosts'>>>
}

export const createPost: OperationHandler<'createPost'> = async (request, reply) => {
  const { auth, posts } = request.server.services
  auth.requireVerifiedEmail(request.principal!)
  const post = await posts.create(request.principal!, request.body)
  reply.code(201).header('etag', etagOf(post))
  return success(request, post)
}

type CachedAnswer = ReturnType<OperationHandler<'getPost'>>

/** 304 from a handler that answers at once: Fastify sends what a promise of nothing leaves. */
const NOT_MODIFIED: CachedAnswer = Promise.resolve(undefined)

/** A post from the post cache, or 304: a hit costs no database round trip and no serialisation. */
function sendCached(request: FastifyRequest, reply: FastifyReply, { bytes, etag }: CachedPost): CachedAnswer {
  reply.header('etag', etag)
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
    reply.code(304)
    return NOT_MODIFIED
  }
  reply.type('application/json; charset=utf-8')
  // The handler's type is the parsed envelope; the bytes are that envelope, already serialised.
  return successBytes(request, bytes) as unknown as CachedAnswer
}

/** A post in memory is answered at once, without the promise and the turn an async handler costs. */
export const getPost: OperationHandler<'getPost'> = (request, reply) => {
  const { posts } = request.server.services
  const inMemory = posts.readFromMemory(request.principal, request.params.id)
  if (inMemory) return sendCached(request, reply, inMemory)
  return posts.read(request.principal, request.params.id).then((read) => sendCached(request, reply, read))
}

/** The same answer as getPost's, from the same cache, once the slug led to an id (from memory too). */
export const getPostBySlug: OperationHandler<'getPostBySlug'> = async (request, reply) =>
  sendCached(request, reply, await request.server.services.posts.readBySlug(request.principal, request.params.slug))

export const updatePost: OperationHandler<'updatePost'> = async (request, reply) => {
  const post = await request.server.services.posts.update(
    request.principal!,
    request.params.id,
    request.body,
    request.headers['if-match'],
  )
  reply.header('etag', etagOf(post))
  return success(request, post)
}

export const deletePost: OperationHandler<'deletePost'> = async (request, reply) => {
  await request.server.services.posts.remove(request.principal!, request.params.id, request.headers['if-match'])
  reply.code(204)
  return undefined
}
