// The data layer for posts: reads of one post, the write transaction (its statements are in
// post-write-store.ts), the html backfill's reads and writes. Lists are in post-list-store.ts.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { PostStatus } from '../../generated/prisma/enums.ts'
import type { Tx } from '../../db/transaction.ts'
import type { StoreImages } from '../thumbnails/image-store.ts'
import { listPage, postJsonOf, type ListQuery } from './post-list-store.ts'
import { writesIn, type PostWrite } from './post-write-store.ts'
import { findOwnMedia } from '../html/body-media-store.ts'

export const postInclude = {
  author: { select: { id: true, name: true } },
  categories: { select: { category: { select: { id: true, name: true, slug: true } } } },
  thumbnail: {
    select: { width: true, image: { select: { key: true, width: true, height: true, contentType: true } } },
  },
  media: { select: { mediaId: true } },
} satisfies Prisma.PostInclude

export type PostRecord = Prisma.PostGetPayload<{ include: typeof postInclude }>
export type { PostStatus }
export type { PostFields, PostWrite } from './post-write-store.ts'
export type { ListedPage, ListQuery } from './post-list-store.ts'

/** The post with its relations (a write's transaction passes its own `db`). */
export const loadPost = (db: Tx | PrismaClient, id: string) =>
  db.post.findUnique({ where: { id }, include: postInclude })

export interface PostStoreOptions {
  /**
   * How long the client waits for one query (DATABASE_TIMEOUT_MS). Each statement of a write is
   * cut off by the server a little sooner (see transaction); without it, none is.
   */
  databaseTimeoutMs?: number
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts): the urls of the posts lists write. */
  imageUrls: string
  /** Stores a thumbnail's images, rows and bytes, in the write's transaction (image-store.ts). */
  storeImages: StoreImages
  /** Prisma's timeout for a write's transaction, which may wait for the object store (transactionTimeout). */
  transactionTimeoutMs?: number
}

export function makePostStore(
  prisma: PrismaClient,
  { databaseTimeoutMs, imageUrls, storeImages, transactionTimeoutMs }: PostStoreOptions,
) {
  // The server ends a write's statement before the client stops waiting for it: the client then
  // gets the server's error (SQLSTATE 57014, answered 503) and the transaction rolls back as usual.
  // A client that gives up first leaves the statement running on the server, long after its
  // request was answered 503.
  const statementTimeout = databaseTimeoutMs === undefined ? undefined : String(Math.floor(databaseTimeoutMs * 0.9))
  const postJson = postJsonOf(imageUrls)

  return {
    /**
     * Runs a write. PGlite accepts the statement timeout and does not enforce it: its work is
     * bounded by what the write sends it (searchText).
     */
    transaction: <T>(work: (write: PostWrite) => Promise<T>) =>
      prisma.$transaction(
        async (tx) => {
          if (statementTimeout !== undefined)
            await tx.$queryRaw`select set_config('statement_timeout', ${statementTimeout}, true)`
          return work(writesIn(tx, storeImages))
        },
        transactionTimeoutMs === undefined ? undefined : { timeout: transactionTimeoutMs },
      ),

    /**
     * The post as the JSON GET /posts/{id} sends, or null: built by the database in one statement
     * (one snapshot, so never torn by a write between two reads), the same bytes as a list's item.
     */
    async findJson(id: string): Promise<string | null> {
      const [row] = await prisma.$queryRaw<
        { json: string }[]
      >`select ${postJson} as json from posts p where p.id = ${id}::uuid`
      return row?.json ?? null
    },

    /** The media items of `ownerId` that have a rendition among `keys`, by key (body-media-store.ts). */
    ownMedia: (ownerId: string, keys: string[]) => findOwnMedia(prisma, ownerId, keys),

    /** What the rights on the post depend on (its author and status); null when there is none. */
    findOwnerAndStatus: (id: string) =>
      prisma.post.findUnique({ where: { id }, select: { id: true, authorId: true, status: true } }),

    /**
     * The id of the author's unpublished post whose current slug is `slug` (unique among the
     * author's posts, post-slugs.ts), or null. Unpublished posts claim no slug, so getPostBySlug
     * finds them this way, for their author only.
     */
    async findOwnUnpublished(authorId: string, slug: string): Promise<string | null> {
      const post = await prisma.post.findFirst({
        where: { authorId, slug, status: { not: 'published' } },
        select: { id: true },
      })
      return post?.id ?? null
    },

    /** Resolves a category given by id or by slug; null when there is none. */
    async categoryIdOf(idOrSlug: string): Promise<string | null> {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrSlug)
      const category = await prisma.category.findFirst({
        where: isUuid ? { id: idOrSlug } : { slug: idOrSlug },
        select: { id: true },
      })
      return category?.id ?? null
    },

    /** A page of posts, as the JSON array the API sends (post-list-store.ts). */
    list: (query: ListQuery) => listPage(prisma, query, postJson),

    /**
     * Up to `limit` posts waiting for their html (post_html_pending, kept by the migration
     * post_html's triggers), in id order after `after`.
     */
    pendingHtml: (after: string | null, limit: number) =>
      prisma.$queryRaw<{ id: string; body: string }[]>`
        select p.id, p.body from post_html_pending q join posts p on p.id = q.post_id
        where ${after}::uuid is null or q.post_id > ${after}::uuid
        order by q.post_id limit ${limit}`,

    /**
     * Stores `html` as the post's rendering of `body`, unless the post has html already or its body
     * changed meanwhile (a writer of the release before, whose edit queues it again); takes the post
     * off the pending list once it has html. True when this stored it.
     */
    saveHtml: (id: string, body: string, html: string) =>
      prisma.$transaction(async (tx) => {
        const saved = await tx.$executeRaw`
          update posts set html = ${html} where id = ${id}::uuid and html is null and body = ${body}`
        // In the transaction that holds the post's row: an edit waiting for it queues the post again after this.
        await tx.$executeRaw`
          delete from post_html_pending q using posts p
          where q.post_id = ${id}::uuid and p.id = q.post_id and p.html is not null`
        return saved === 1
      }),
  }
}

export type PostStore = ReturnType<typeof makePostStore>
