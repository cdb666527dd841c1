// A post write's statements, bound to its transaction (PostStore.transaction hands them out).
import type { PostStatus } from '../../generated/prisma/enums.ts'
import { sqlIn, type Tx } from '../../db/transaction.ts'
import type { Rendition } from '../../images/renditions.ts'
import { thumbnailWrites, type StoreImages } from '../thumbnails/image-store.ts'
import { postMediaWrites } from '../html/body-media-store.ts'
import { slugWrites } from '../slugs/post-slug-store.ts'
import { searchText } from '../search/search-text.ts'
import { loadPost } from './post-store.ts'
import { revisionWrites } from '../revisions/revision-store.ts'

/** The fields a write sets; those left undefined keep their value. */
export interface PostFields {
  title?: string
  body?: string
  /** The body's rendering (src/content/html): written with every body, never without one. */
  html?: string
  excerpt?: string
  status?: PostStatus
  publishedAt?: Date | null
  publishJobId?: string | null
  /** false: createComment answers 409 COMMENTS_CLOSED. */
  commentsOpen?: boolean
}

/**
 * A write's statements, bound to its transaction (PostStore.transaction hands them out): what the
 * write locks, reads and changes is seen and kept together, or not at all.
 */
export function writesIn(tx: Tx, storeImages: StoreImages) {
  const thumbnail = thumbnailWrites(tx, storeImages)
  const media = postMediaWrites(tx)
  return {
    /**
     * Locks the post's row until the transaction ends, so If-Match checks and writes cannot
     * interleave; what the rights depend on (its author and status), or null when there is none.
     */
    async lock(id: string): Promise<{ authorId: string; status: PostStatus } | null> {
      const [post] = await tx.$queryRaw<{ authorId: string; status: PostStatus }[]>`
        select author_id as "authorId", status from posts where id = ${id}::uuid for update`
      return post ?? null
    },

    /** The post with its relations, as this write sees it. */
    find: (id: string) => loadPost(tx, id),

    /**
     * Ids of the categories that exist among `ids`, locked `for key share` until the transaction
     * ends: deleteCategory (which locks its category `for update`) then waits for this write and
     * moves the post to the default category, instead of deleting the category between this check
     * and the insert into post_categories (a foreign key violation). A category deleted first is
     * simply not found here.
     */
    async existingCategoryIds(ids: string[]): Promise<Set<string>> {
      const found = await tx.$queryRaw<
        { id: string }[]
      >`select id from categories where id = any(${ids}::uuid[]) for key share`
      return new Set(found.map((category) => category.id))
    },

    defaultCategoryId: async () =>
      (await tx.category.findFirstOrThrow({ where: { isDefault: true }, select: { id: true } })).id,

    /** Creates the post filed under `categoryIds`, its current slug `slug` (which `slugs` then claims); its id. */
    async create(
      authorId: string,
      fields: PostFields & { title: string; body: string; html: string; excerpt: string; status: PostStatus },
      categoryIds: string[],
      slug: string,
    ) {
      const post = await tx.post.create({
        data: { authorId, ...fields, slug, categories: { create: categoryIds.map((categoryId) => ({ categoryId })) } },
        select: { id: true },
      })
      return post.id
    },

    update: async (id: string, fields: PostFields) =>
      void (await tx.post.update({ where: { id }, data: fields, select: { id: true } })),

    /** Files the post under exactly `categoryIds`. */
    async fileUnder(id: string, categoryIds: string[]) {
      await tx.postCategory.deleteMany({ where: { postId: id } })
      await tx.postCategory.createMany({ data: categoryIds.map((categoryId) => ({ postId: id, categoryId })) })
    },

    /**
     * Keeps the search vector in step with the post's title and body, indexed as searchText
     * prepares them: in time linear in their length.
     */
    reindex: (id: string, title: string, body: string) =>
      tx.$executeRaw`update posts set search_vector = to_tsvector('english', ${searchText(`${title} ${body}`)}) where id = ${id}::uuid`,

    /** Deletes the post; its filings, comments and thumbnail rows go with it (cascade). */
    remove: async (id: string) => void (await tx.post.delete({ where: { id }, select: { id: true } })),

    /** Marks the post changed now: what it shows changed elsewhere (its thumbnail). */
    touch: async (id: string) =>
      void (await tx.post.update({ where: { id }, data: { updatedAt: new Date() }, select: { id: true } })),

    /** Makes the post's thumbnail exactly `renditions`; how many rows it had before (see thumbnailWrites). */
    replaceThumbnail: (postId: string, renditions: Rendition[]) => thumbnail.replace(postId, renditions),

    /**
     * Makes the media items the post's html shows exactly `mediaIds` (those still `authorId`'s):
     * written with the html it was rendered with.
     */
    showMedia: (postId: string, authorId: string, mediaIds: string[]) => media.replace(postId, authorId, mediaIds),

    /** Removes the post's thumbnail rows; how many there were. Their images go with the next sweep. */
    removeThumbnail: (postId: string) => thumbnail.remove(postId),

    /** Makes the post's thumbnail the images a revision kept (they exist: it holds them); how many rows it had before. */
    restoreThumbnail: (postId: string, images: { key: string; width: number }[]) => thumbnail.restore(postId, images),

    /** Publishes a scheduled post whose time has come; false when it was rescheduled, unscheduled or deleted. */
    async publishIfDue(id: string): Promise<boolean> {
      const count = await tx.$executeRaw`
        update posts set status = 'published', publish_job_id = null, updated_at = now()
        where id = ${id}::uuid and status = 'scheduled' and published_at <= now()`
      return count === 1
    },

    /** SQL in this transaction: jobs enqueued or cancelled with it commit or roll back with the write. */
    sql: sqlIn(tx),

    /** The post's slugs (post-slugs.ts has the rules). */
    slugs: slugWrites(tx),

    /** The post's revisions (src/content/revisions). */
    revisions: revisionWrites(tx),
  }
}

export type PostWrite = ReturnType<typeof writesIn>
