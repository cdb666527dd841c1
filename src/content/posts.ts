// Posts. (Being implemented: see issue 4.)
import type { PrismaClient } from '../generated/prisma/client.ts'
import { notFound } from '../http/api-error.ts'
import type { Principal } from '../http/security.ts'
import { canSee } from './visibility.ts'

export function makePostService(prisma: PrismaClient) {
  return {
    /** The post's owner and status, or 404 POST_NOT_FOUND when it does not exist for this caller. */
    async findVisible(principal: Principal | null, id: string) {
      const post = await prisma.post.findUnique({ where: { id }, select: { id: true, authorId: true, status: true } })
      if (!post || !canSee(principal, post)) throw notFound('POST_NOT_FOUND', 'Post')
      return post
    },
  }
}

export type PostService = ReturnType<typeof makePostService>
