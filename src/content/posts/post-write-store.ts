// A post write's statements, bound to its transaction (PostStore.transaction hands them out).
import type { PostStatus } from '../../generated/prisma/enums.ts'
import { sqlIn, type Tx } from '../../db/transaction.ts'
import type { Rendition } from '../../images/renditions.ts'
import { thumbnailWrites, type StoreImages } from '../thumbnails/image-store.ts'
import { postMediaWrites } from '../html/body-media-store.ts'
import { slugWrites } from '../slugs/post-slug-store.ts'
import { searchText } from '../search/search-text.ts'
import type { PostRecord } from './post-store.ts'
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

/** loadPost's row: the post's columns, its author's name, its relations as JSON text. */
interface LoadedPostRow extends Omit<PostRecord, 'author' | 'categories' | 'thumbnail' | 'media'> {
  authorName: string
  categories: string
  thumbnail: string
  media: string
}

/**
 * The post with its relations, as loadPost (post-store.ts) reads it with Prisma's include, in one
 * statement instead of seven (the post, then its author, filings, thumbnail rows and media rows,
 * then the filings' categories and the thumbnail's images): a post write reads its post once or
 * twice, and every statement costs a round trip, the driver's and Prisma's work. The relations come
 * as JSON text, parsed here: their order is unspecified, as Prisma's is, and every reader sorts
 * them. One statement sees one snapshot: no filing without its category, as a read in seven could.
 */
async function loadPostInOne(tx: Tx, id: string): Promise<PostRecord | null> {
  const [row] = await tx.$queryRaw<LoadedPostRow[]>`
    select p.id::text as id, p.author_id::text as "authorId", p.title, p.body, p.html, p.excerpt,
      p.status::text as status, p.published_at as "publishedAt", p.publish_job_id::text as "publishJobId",
      p.comment_count as "commentCount", p.comments_open as "commentsOpen", p.created_at as "createdAt",
      p.updated_at as "updatedAt", p.slug, u.name as "authorName",
      coalesce((
        select json_agg(json_build_object('id', c.id, 'name', c.name, 'slug', c.slug))
        from post_categories pc join categories c on c.id = pc.category_id where pc.post_id = p.id
      ), '[]')::text as categories,
      coalesce((
        select json_agg(json_build_object(
          'width', t.width, 'key', i.key, 'imageWidth', i.width, 'height', i.height, 'contentType', i.content_type))
        from post_thumbnails t join images i on i.key = t.image_key where t.post_id = p.id
      ), '[]')::text as thumbnail,
      coalesce((select json_agg(m.media_id) from post_media m where m.post_id = p.id), '[]')::text as media
    from posts p join users u on u.id = p.author_id
    where p.id = ${id}::uuid`
  if (row === undefined) return null
  const { authorName, categories, thumbnail, media, ...post } = row
  const thumbnailRows = JSON.parse(thumbnail) as {
    width: number
    key: string
    imageWidth: number
    height: number
    contentType: string
  }[]
  return {
    ...post,
    author: { id: post.authorId, name: authorName },
    categories: (JSON.parse(categories) as { id: string; name: string; slug: string }[]).map((category) => ({
      category,
    })),
    thumbnail: thumbnailRows.map(({ width, key, imageWidth, height, contentType }) => ({
      width,
      image: { key, width: imageWidth, height, contentType },
    })),
    media: (JSON.parse(media) as string[]).map((mediaId) => ({ mediaId })),
  }
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

    /** The post with its relations, as this write sees it (loadPost's record, in one statement). */
    find: (id: string) => loadPostInOne(tx, id),

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
      // The filings in a statement of their own: a nested create costs Prisma a third, reading the post back.
      const post = await tx.post.create({ data: { authorId, ...fields, slug }, select: { id: true } })
      await tx.postCategory.createMany({ data: categoryIds.map((categoryId) => ({ postId: post.id, categoryId })) })
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
     * written with the html it was rendered with. `shown`: the items it shows now, as read under
     * the post's lock (none for a new post), when known: showing none instead of none is nothing to write.
     */
    showMedia: (postId: string, authorId: string, mediaIds: string[], shown?: readonly unknown[]) =>
      shown !== undefined && shown.length === 0 && mediaIds.length === 0
        ? Promise.resolve()
        : media.replace(postId, authorId, mediaIds),

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
