// Comments on published posts, one level of replies, the post's comment count kept exact.
// (Being implemented: see issue 4.)
import type { PrismaClient } from '../generated/prisma/client.ts'
import type { PostService } from './posts.ts'

export function makeCommentService(prisma: PrismaClient, posts: PostService) {
  void prisma
  void posts
  return {}
}

export type CommentService = ReturnType<typeof makeCommentService>
