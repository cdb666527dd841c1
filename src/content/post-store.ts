// The data layer for posts. Lists are keyset-paged in SQL on an indexed sort column, never offset.
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts'
import type { PostStatus } from '../generated/prisma/enums.ts'

export const postInclude = {
  author: { select: { id: true, name: true } },
  categories: { select: { category: { select: { id: true, name: true, slug: true } } } },
  thumbnail: { select: { width: true, image: { select: { key: true, width: true, height: true, contentType: true } } } },
} satisfies Prisma.PostInclude

export type PostRecord = Prisma.PostGetPayload<{ include: typeof postInclude }>
export type Tx = Prisma.TransactionClient

export interface ListQuery {
  status: PostStatus
  /** Only this author's posts (a filter, or the visibility rule for drafts). */
  authorId?: string
  categoryId?: string
  search?: string
  after?: { at: Date; id: string }
  limit: number
}

/** Drafts have no publication time: they sort by creation. */
export const sortColumn = (status: PostStatus) => (status === 'draft' ? 'created_at' : 'published_at')

export function makePostStore(prisma: PrismaClient) {
  return {
    transaction: <T>(fn: (tx: Tx) => Promise<T>) => prisma.$transaction(fn),

    find: (id: string, tx: Tx | PrismaClient = prisma) => tx.post.findUnique({ where: { id }, include: postInclude }),

    /** Locks the post's row until the transaction ends: If-Match checks and writes cannot interleave. */
    async lock(tx: Tx, id: string): Promise<boolean> {
      const rows = await tx.$queryRaw<{ id: string }[]>`select id from posts where id = ${id}::uuid for update`
      return rows.length === 1
    },

    /**
     * Ids of the categories that exist among `ids`, locked `for key share` until the transaction
     * ends: deleteCategory (which locks its category `for update`) then waits for this write and
     * moves the post to the default category, instead of deleting the category between this check
     * and the insert into post_categories (a foreign key violation). A category deleted first is
     * simply not found here.
     */
    async existingCategoryIds(tx: Tx, ids: string[]): Promise<Set<string>> {
      const found = await tx.$queryRaw<{ id: string }[]>`select id from categories where id = any(${ids}::uuid[]) for key share`
      return new Set(found.map((category) => category.id))
    },

    defaultCategoryId: async (tx: Tx) => (await tx.category.findFirstOrThrow({ where: { isDefault: true }, select: { id: true } })).id,

    /** Resolves a category given by id or by slug; null when there is none. */
    async categoryIdOf(idOrSlug: string): Promise<string | null> {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrSlug)
      const category = await prisma.category.findFirst({ where: isUuid ? { id: idOrSlug } : { slug: idOrSlug }, select: { id: true } })
      return category?.id ?? null
    },

    /** Keeps the search vector in step with the title and body it indexes. */
    reindex: (tx: Tx, id: string) =>
      tx.$executeRaw`update posts set search_vector = to_tsvector('english', title || ' ' || body) where id = ${id}::uuid`,

    async list(query: ListQuery): Promise<PostRecord[]> {
      const column = Prisma.raw(`p.${sortColumn(query.status)}`)
      const conditions = [Prisma.sql`p.status = ${query.status}::"PostStatus"`]
      if (query.authorId) conditions.push(Prisma.sql`p.author_id = ${query.authorId}::uuid`)
      if (query.categoryId) {
        conditions.push(Prisma.sql`exists (select 1 from post_categories pc where pc.post_id = p.id and pc.category_id = ${query.categoryId}::uuid)`)
      }
      if (query.search) conditions.push(Prisma.sql`p.search_vector @@ websearch_to_tsquery('english', ${query.search})`)
      if (query.after) conditions.push(Prisma.sql`(${column}, p.id) < (${query.after.at}, ${query.after.id}::uuid)`)
      const rows = await prisma.$queryRaw<{ id: string }[]>`
        select p.id from posts p
        where ${Prisma.join(conditions, ' and ')}
        order by ${column} desc, p.id desc
        limit ${query.limit + 1}`
      if (rows.length === 0) return []
      const posts = await prisma.post.findMany({ where: { id: { in: rows.map((row) => row.id) } }, include: postInclude })
      const byId = new Map(posts.map((post) => [post.id, post]))
      return rows.flatMap((row) => byId.get(row.id) ?? [])
    },

    /** Publishes a scheduled post whose time has come; false when it was rescheduled, unscheduled or deleted. */
    async publishIfDue(id: string): Promise<boolean> {
      const count = await prisma.$executeRaw`
        update posts set status = 'published', publish_job_id = null, updated_at = now()
        where id = ${id}::uuid and status = 'scheduled' and published_at <= now()`
      return count === 1
    },
  }
}

export type PostStore = ReturnType<typeof makePostStore>
