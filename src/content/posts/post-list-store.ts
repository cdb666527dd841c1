// The SQL of post lists (listPosts, the feed): keyset-paged on an indexed sort column, never by
// offset, each page built as the JSON the API sends in one statement, from the view's list of keys.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts'
import type { PostStatus } from '../../generated/prisma/enums.ts'
import { inSnapshot, type Tx } from '../../db/transaction.ts'
import { POST_KEYS } from './post-view.ts'

export interface ListQuery {
  status: PostStatus
  /** Only this author's posts (a filter, or the visibility rule for drafts). */
  authorId?: string
  categoryId?: string
  search?: string
  after?: { at: Date; id: string }
  limit: number
  /** The most bytes the page's JSON array may weigh (LIST_PAGE_MAX_BYTES); it holds one post at least. */
  maxBytes: number
}

/**
 * How many of the newest posts a search reads in order before it turns to the search index
 * (see searchAlone). Near sqrt(page × posts) at a million posts: a word rarer than a page in this
 * many posts, spread evenly over time, has about that many matches to sort. A word common only in
 * older posts (none among the newest) is sorted whole: bounded by its own frequency, not by this.
 */
const SEARCH_WINDOW = 5000

/** Drafts have no publication time: they sort by creation. */
export const sortColumn = (status: PostStatus) => (status === 'draft' ? 'created_at' : 'published_at')

type IdRow = { id: string }

/** A page of posts as listPosts sends it, and the sort key of its last post when another page follows. */
export interface ListedPage {
  /** The posts as a JSON array, exactly as toPost and JSON.stringify would write them. */
  json: string
  next: { at: Date; id: string } | null
  /** The posts on the page and their authors, for the list cache's selective invalidation. */
  postIds: string[]
  authorIds: string[]
}

/** How toISOString writes a time (timestamps are stored as UTC). */
const iso = (column: Prisma.Sql) => Prisma.sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * Each property of the post `p` as toPost writes it with `imageUrls` (the image url prefix), in SQL: the same values, the
 * same sort orders (categories by slug in code point order, thumbnail sizes by width). Arrays are
 * joined by hand: json_agg puts a line break between elements. Every property of the spec's Post
 * must be here (the type says so); postJsonOf writes them in POST_KEYS's order, the view's.
 */
const postColumns = (imageUrls: string): { [Key in (typeof POST_KEYS)[number]]: Prisma.Sql } => ({
  id: Prisma.sql`p.id`,
  title: Prisma.sql`p.title`,
  body: Prisma.sql`p.body`,
  html: Prisma.sql`coalesce(p.html, '')`,
  excerpt: Prisma.sql`p.excerpt`,
  status: Prisma.sql`p.status`,
  publishedAt: iso(Prisma.sql`p.published_at`),
  author: Prisma.sql`(select to_json(a) from (select u.id, u.name from users u where u.id = p.author_id) a)`,
  categories: Prisma.sql`(select coalesce(('[' || string_agg(to_json(c)::text, ',' order by c.slug collate "C") || ']')::json, '[]'::json)
    from (select c.id, c.name, c.slug from post_categories pc join categories c on c.id = pc.category_id
          where pc.post_id = p.id) c)`,
  thumbnail: Prisma.sql`(select ('{"sizes":[' || string_agg(to_json(s)::text, ',' order by s.width, s.url collate "C") || ']}')::json
    from (select i.width, i.height, ${imageUrls}::text || i.key as url, i.content_type as "contentType"
          from post_thumbnails t join images i on i.key = t.image_key where t.post_id = p.id) s)`,
  // uuid order is the order of their lower-case hex text: toPost's code point order.
  mediaIds: Prisma.sql`to_json(array(select pm.media_id from post_media pm where pm.post_id = p.id order by pm.media_id))`,
  commentCount: Prisma.sql`p.comment_count`,
  commentsOpen: Prisma.sql`p.comments_open`,
  createdAt: iso(Prisma.sql`p.created_at`),
  updatedAt: iso(Prisma.sql`p.updated_at`),
  slug: Prisma.sql`p.slug`,
})

/** The post `p` as JSON text, as toPost writes it with `imageUrls`: a list item is the same bytes as GET /posts/{id}. */
export type PostJson = Prisma.Sql

/**
 * The image url prefix is fixed for the process: its store builds this once, and the prefix goes as
 * a bound parameter, concatenated with the key as imageUrl (src/storage/image-url.ts) does.
 */
export function postJsonOf(imageUrls: string): PostJson {
  const columns = postColumns(imageUrls)
  return Prisma.sql`(select to_json(v)::text from (select ${Prisma.join(
    POST_KEYS.map((key) => Prisma.sql`${columns[key]} as ${Prisma.raw(`"${key}"`)}`),
  )}) v)`
}

/**
 * The page of at most `limit` posts whose ids `ids` selects (columns id and n, its place from 1;
 * one row more than the page when another page follows), built in one statement, and cut to the
 * posts whose JSON array weighs at most `maxBytes` (one post at least). The next page starts after
 * the last post kept. Only posts whose stored text alone still fits (`floor`: what their JSON
 * weighs at least, read from the stored lengths without reading the text) are turned into JSON at
 * all, so a page of heavy posts costs the database about the budget, not `limit` heavy posts.
 */
async function pageFrom(
  db: Tx,
  ids: Prisma.Sql,
  column: Prisma.Sql,
  { limit, maxBytes }: { limit: number; maxBytes: number },
  postJson: PostJson,
): Promise<ListedPage> {
  const [row] = await db.$queryRaw<
    {
      rows: number
      json: string | null
      lastAt: Date | null
      lastId: string | null
      postIds: string[] | null
      authorIds: string[] | null
    }[]
  >`
    with page as (
      select page.n, p.id, p.author_id, ${column} as at,
        sum(octet_length(p.title) + octet_length(p.body) + coalesce(octet_length(p.html), 0) + octet_length(p.excerpt))
          over (order by page.n) as floor
      from (${ids}) page join posts p on p.id = page.id),
    built as (
      select page.n, page.id, page.author_id, page.at, ${postJson} as json
      from page join posts p on p.id = page.id
      where page.n <= ${limit} and (page.n = 1 or page.floor <= ${maxBytes})),
    sized as (select built.*, sum(octet_length(built.json) + 1) over (order by built.n) as upto from built)
    select (select count(*)::int from page) as rows,
      '[' || string_agg(kept.json, ',' order by kept.n) || ']' as json,
      (array_agg(kept.at order by kept.n desc))[1] as "lastAt",
      (array_agg(kept.id::text order by kept.n desc))[1] as "lastId",
      array_agg(kept.id::text order by kept.n) as "postIds",
      array_agg(distinct kept.author_id::text) as "authorIds"
    from sized kept where kept.n = 1 or kept.upto + 1 <= ${maxBytes}`
  const { rows, json, lastAt, lastId, postIds, authorIds } = row!
  const kept = postIds?.length ?? 0
  return {
    json: json ?? '[]',
    next: rows > kept && lastAt && lastId ? { at: lastAt, id: lastId } : null,
    postIds: postIds ?? [],
    authorIds: authorIds ?? [],
  }
}

const newestFirst = (column: Prisma.Sql, limit: number) => Prisma.sql`order by ${column} desc, p.id desc limit ${limit}`

/**
 * A search with no other filter. It has two good plans, and PostgreSQL cannot tell which one a
 * query needs: its estimate for a word it has no statistics on is a flat guess that makes walking look cheap.
 * A common word is best found by walking the newest posts in order until a page has matched; a
 * rare one, by its GIN index and then sorting its few matches (walking for it may read every post:
 * 0.2 to 0.6 s at a million). So: walk a bounded window of the newest posts first; a word that
 * fills a page there is common and that page is the answer (whatever matches beyond the window is
 * older). Otherwise, unless the window held every post left, the word is rare (under a page per
 * SEARCH_WINDOW posts) and its matches come from the GIN index, fenced by a materialized CTE so the
 * planner cannot turn it back into the walk.
 */
async function searchAlone(tx: Tx, position: Prisma.Sql, search: Prisma.Sql, column: Prisma.Sql, rowsWanted: number) {
  const window = Prisma.sql`select * from posts p where ${position} ${newestFirst(column, SEARCH_WINDOW)}`
  const rows = await tx.$queryRaw<
    IdRow[]
  >`select p.id from (${window}) p where ${search} ${newestFirst(column, rowsWanted)}`
  if (rows.length === rowsWanted) return rows
  const [counted] = await tx.$queryRaw<{ seen: number }[]>`select count(*)::int as seen from (${window}) p`
  if (counted!.seen < SEARCH_WINDOW) return rows
  return tx.$queryRaw<IdRow[]>`
    with matches as materialized (select p.id, ${column} from posts p where ${search} and ${position})
    select p.id from matches p ${newestFirst(column, rowsWanted)}`
}

/**
 * A page of posts, as the JSON array the API sends (see pageJson), and where the next page
 * starts. One statement reads the ids in order on (status, sort column, id) and builds the page
 * from them: one snapshot, so a post deleted, re-filed or unpublished meanwhile is never shown
 * half-changed, and a draft never shows in the public list. Each post is written by `postJson`
 * (postJsonOf, built once by the store).
 */
export async function listPage(prisma: PrismaClient, query: ListQuery, postJson: PostJson): Promise<ListedPage> {
  const column = Prisma.raw(`p.${sortColumn(query.status)}`)
  // Where the list stands: walked in order on (status, sort column, id), never skipped by offset.
  const position = [Prisma.sql`p.status = ${query.status}::"PostStatus"`]
  if (query.after) position.push(Prisma.sql`(${column}, p.id) < (${query.after.at}, ${query.after.id}::uuid)`)
  const filters: Prisma.Sql[] = []
  if (query.authorId) filters.push(Prisma.sql`p.author_id = ${query.authorId}::uuid`)
  if (query.categoryId) {
    filters.push(
      Prisma.sql`exists (select 1 from post_categories pc where pc.post_id = p.id and pc.category_id = ${query.categoryId}::uuid)`,
    )
  }
  const search = query.search
    ? Prisma.sql`p.search_vector @@ websearch_to_tsquery('english', ${query.search})`
    : undefined
  const rowsWanted = query.limit + 1
  // With an author or a category, the planner's statistics on them pick a good plan, even at a
  // million posts. A search alone is its blind spot: see searchAlone, whose reads share a snapshot.
  if (search && filters.length === 0) {
    return inSnapshot(prisma, async (tx) => {
      const rows = await searchAlone(tx, Prisma.join(position, ' and '), search, column, rowsWanted)
      const ids = rows.map((row) => row.id)
      return pageFrom(
        tx,
        Prisma.sql`select id, n from unnest(${ids}::uuid[]) with ordinality as t(id, n)`,
        column,
        query,
        postJson,
      )
    })
  }
  const ordered = Prisma.sql`order by ${column} desc, p.id desc`
  const ids = Prisma.sql`
      select p.id, row_number() over (${ordered}) as n from posts p
      where ${Prisma.join([...position, ...filters, ...(search ? [search] : [])], ' and ')}
      ${ordered} limit ${rowsWanted}`
  return pageFrom(prisma, ids, column, query, postJson)
}
