// The data layer for post revisions: the statements a post write makes in its own transaction
// (the newest revision's number, the insert, the pruning), and the reads of the three
// operations. Rules (what changed, what is kept) are in revision-rules.ts.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { PostStatus } from '../../generated/prisma/enums.ts'
import type { Tx } from '../../db/transaction.ts'
import type { RevisionContent } from './revision-rules.ts'

/** What the view needs of a revision: its content, its editor, its thumbnail's images. */
export const revisionInclude = {
  editor: { select: { id: true, name: true } },
  images: {
    select: { width: true, image: { select: { key: true, width: true, height: true, contentType: true } } },
  },
} as const

/** A revision's statements, bound to the post write's transaction `tx` (PostStore.transaction). */
export function revisionWrites(tx: Tx) {
  return {
    /** The number of the post's newest revision; null when it has none. */
    async newestNumber(postId: string): Promise<number | null> {
      const newest = await tx.postRevision.findFirst({
        where: { postId },
        orderBy: { number: 'desc' },
        select: { number: true },
      })
      return newest?.number ?? null
    },

    /** Inserts revision `number` of the post with its thumbnail's images (kept by RESTRICT). */
    insert: async (postId: string, number: number, editorId: string | null, content: RevisionContent) =>
      void (await tx.postRevision.create({
        data: {
          postId,
          number,
          editorId,
          changed: content.changed,
          title: content.title,
          body: content.body,
          excerpt: content.excerpt,
          slug: content.slug,
          status: content.status as PostStatus,
          publishedAt: content.publishedAt,
          categoryIds: content.categoryIds,
          byteSize: content.byteSize,
          // Only when there are any: a nested create, even of nothing, costs Prisma a statement reading the revision back.
          ...(content.thumbnail.length === 0
            ? {}
            : { images: { create: content.thumbnail.map(({ key, width }) => ({ imageKey: key, width })) } }),
        },
        select: { id: true },
      })),

    /**
     * Deletes the post's revisions beyond the newest `max` or beyond `maxBytes` counted from the
     * newest, except the newest itself and the newest whose status was published (always kept):
     * one statement, over at most max + 2 rows. Their images rows go by cascade, and their images
     * with the next orphan sweep. How many were deleted.
     */
    prune: (postId: string, max: number, maxBytes: number) =>
      tx.$executeRaw`
        delete from post_revisions d using (
          select id, row_number() over w as rank, sum(byte_size) over w as bytes
          from post_revisions where post_id = ${postId}::uuid
          window w as (order by number desc)
        ) k
        where d.id = k.id and k.rank > 1 and (k.rank > ${max} or k.bytes > ${maxBytes}::bigint)
          and d.number is distinct from (
            select max(number) from post_revisions where post_id = ${postId}::uuid and status = 'published')`,
  }
}

export type RevisionWrites = ReturnType<typeof revisionWrites>

export function makeRevisionStore(prisma: PrismaClient) {
  return {
    /** A page of the post's revisions, newest first, numbered below `before` when given. */
    list: (postId: string, before: number | undefined, take: number) =>
      prisma.postRevision.findMany({
        where: { postId, ...(before === undefined ? {} : { number: { lt: before } }) },
        orderBy: { number: 'desc' },
        take,
        select: { id: true, number: true, createdAt: true, changed: true, title: true, editor: revisionInclude.editor },
      }),

    /** The revision `id` of the post `postId`; null when it is another post's or there is none. */
    find: (postId: string, id: string) =>
      prisma.postRevision.findFirst({ where: { id, postId }, include: revisionInclude }),

    /** Which of `ids` are categories still: a restore files the post under those only. */
    async existingCategories(ids: string[]): Promise<string[]> {
      const found = await prisma.category.findMany({ where: { id: { in: ids } }, select: { id: true } })
      const existing = new Set(found.map((category) => category.id))
      return ids.filter((id) => existing.has(id))
    },
  }
}

export type RevisionStore = ReturnType<typeof makeRevisionStore>
export type RevisionRecord = NonNullable<Awaited<ReturnType<RevisionStore['find']>>>
export type RevisionListed = Awaited<ReturnType<RevisionStore['list']>>[number]
