// Posts: status and scheduling rules, optimistic concurrency; who may see and change them is visibility.ts's.
import type { components } from '../../generated/api.ts'
import type { TransactionSql } from '../../db/transaction.ts'
import { ApiError, invalid, notFound, refuseBlank } from '../../errors/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, encodeCursor } from '../../cursor.ts'
import type { Principal } from '../../auth/principal.ts'
import type { CachedPost, PostCache } from './post-cache.ts'
import type { PostChanges } from './post-changes.ts'
import { changeSlug, settleSlug, slugOfTitle } from '../slugs/post-slugs.ts'
import type { SlugCache } from '../slugs/slug-cache.ts'
import type { ListGeneration } from '../../db/list-generation.ts'
import type { ListedPage, PostRecord, PostStatus, PostStore, PostWrite } from './post-store.ts'
import { listEtagOf, pageMetaBytes, type ListCache, type ListedPosts } from './list-cache.ts'
import { deriveExcerpt } from './excerpt.ts'
import { safeSearchText } from '../search/search-query.ts'
import { etagOf, toPost, type Post } from './post-view.ts'
import { canSee, editableBy, listScope, lockForEdit } from './visibility.ts'
import { HTML_MAX_LENGTH, HtmlTooLargeError } from '../html/limits.ts'
import type { HtmlRenderer } from '../html/post-html.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'

type CreatePost = components['schemas']['CreatePostRequest']
type UpdatePost = components['schemas']['UpdatePostRequest']
/**
 * The jobs that publish scheduled posts. Both run their SQL in the write's transaction, so a job
 * is enqueued or cancelled exactly when the write commits.
 */
export interface Publications {
  /** Enqueues the post's publication at `at`; the job's id. */
  schedule(postId: string, at: Date, sql: TransactionSql): Promise<string>
  cancel(jobId: string, sql: TransactionSql): Promise<void>
}

const postNotFound = () => notFound('POST_NOT_FOUND', 'Post')

/** A cached post the caller may see, or 404 (the cache holds drafts too). */
function visibleTo(principal: Principal | null, cached: CachedPost | null): CachedPost {
  if (!cached || !canSee(principal, { authorId: cached.post.author.id, status: cached.post.status }))
    throw postNotFound()
  return cached
}

/** The post's ETag must match `If-Match` (when sent), or the caller edits a version they never saw. */
function checkIfMatch(ifMatch: string | undefined, current: Post) {
  if (ifMatch === undefined || ifMatch.trim() === '*') return
  const tags = ifMatch.split(',').map((tag) => tag.trim())
  if (!tags.includes(etagOf(current))) {
    throw new ApiError(412, 'PRECONDITION_FAILED', 'The post changed since you read it; read it again and retry.')
  }
}

// The time a post publishes itself at is the only one a client sets; publishing sets it to now.
const PUBLISHED_AT_ONLY_SCHEDULED = "is accepted only when the post's status is (or stays) scheduled"

function futureDate(value: string | undefined | null, path: string): Date {
  const date = value ? new Date(value) : null
  // A date-time the schema's format accepts can still be one Date cannot hold (a leap second, `23:59:60`): NaN.
  if (!date || Number.isNaN(date.getTime()) || date.getTime() <= Date.now())
    throw invalid(path, 'must be a time in the future to schedule the post')
  return date
}

/** Asks for unused images to be swept once a write released some (src/jobs/sweep-images.ts). */
export type RequestImageSweep = () => Promise<void>

export interface PostServiceOptions {
  store: PostStore
  publications: Publications
  requestImageSweep: RequestImageSweep
  /** The posts GET /posts/{id} serves, and how writes make every instance forget them. */
  cache: PostCache
  /** Which post a slug leads to, for getPostBySlug; the same writes make every instance forget it. */
  slugs: SlugCache
  /** The public lists listPosts serves; the same writes make every instance forget them. */
  lists: ListCache
  /** Read before a public list is served from the list cache: see src/db/list-generation.ts. */
  listGeneration: Pick<ListGeneration, 'current'>
  changes: PostChanges
  /** Renders bodies to the HTML stored beside them (src/content/html). */
  html: Pick<HtmlRenderer, 'render'>
  /** Webhook events, queued in the transaction of the write that causes them. */
  events: WebhookEvents
  /** LIST_PAGE_MAX_BYTES: the most bytes of posts one page carries. */
  pageMaxBytes: number
}

type ListPostsQuery = {
  limit?: number
  cursor?: string
  category?: string
  author?: string
  status?: PostStatus
  q?: string
}

/** A page read from the store, with the paging and ETag listPosts sends. */
function listed({ json, next, postIds, authorIds }: ListedPage, limit: number): ListedPosts {
  const page = { limit, nextCursor: next && encodeCursor(next) }
  const bytes = Buffer.from(json)
  return { bytes, page, pageBytes: pageMetaBytes(page), etag: listEtagOf(bytes, page), postIds, authorIds }
}

/** What GET /posts/{id}'s cache loads on a miss: the post as stored, whoever may see it. */
export const loadPost = (store: PostStore) => async (id: string) => {
  const record = await store.find(id)
  return record && toPost(record)
}

export function makePostService({
  store,
  publications,
  requestImageSweep,
  cache,
  slugs,
  lists,
  listGeneration,
  changes,
  html: renderer,
  events,
  pageMaxBytes,
}: PostServiceOptions) {
  /**
   * The body's HTML. Rendered before the write's transaction, on the renderer's thread: no row is
   * locked and no connection held while it renders.
   */
  async function render(body: string, principal: Principal): Promise<string> {
    try {
      return await renderer.render(body, principal.userId)
    } catch (error) {
      if (error instanceof HtmlTooLargeError)
        throw invalid('/body/body', `renders to more than ${HTML_MAX_LENGTH} bytes of HTML`)
      throw error
    }
  }

  async function readList(principal: Principal | null, query: ListPostsQuery): Promise<ListedPosts> {
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT
    const status = query.status ?? 'published'
    const empty = (): ListedPosts => listed({ json: '[]', next: null, postIds: [], authorIds: [] }, limit)
    const scope = listScope(principal, status, query.author)
    if (scope === null) return empty()
    const categoryId = query.category === undefined ? undefined : await store.categoryIdOf(query.category)
    if (categoryId === null) return empty()
    const after = decodeCursor(query.cursor)
    const search = query.q === undefined ? undefined : safeSearchText(query.q)
    const maxBytes = pageMaxBytes
    return listed(
      await store.list({ status, authorId: scope.authorId, categoryId, search, after, limit, maxBytes }),
      limit,
    )
  }

  /**
   * The categories to file a post under, locked until the write commits so that none is deleted
   * meanwhile (store.existingCategoryIds); the default category when none are given. `unknown` is
   * the index of the first id that is not a category, -1 when all are.
   */
  async function lockCategories(
    write: PostWrite,
    ids: string[] | undefined,
  ): Promise<{ ids: string[]; unknown: number }> {
    if (!ids || ids.length === 0) return { ids: [await write.defaultCategoryId()], unknown: -1 }
    // Ids arrive lower-cased by request validation, and uniqueItems has refused duplicates.
    const existing = await write.existingCategoryIds(ids)
    return { ids, unknown: ids.findIndex((id) => !existing.has(id)) }
  }

  /** The locked category ids; 422 when one of them is not a category. */
  function known({ ids, unknown }: { ids: string[]; unknown: number }): string[] {
    if (unknown !== -1) {
      throw new ApiError(422, 'CATEGORY_NOT_FOUND', 'A category of the post does not exist.', [
        { path: `/body/categoryIds/${unknown}`, message: 'is not a category' },
      ])
    }
    return ids
  }

  /** Locks and loads a post the caller may change, in the order of refusals the spec gives (412 last). */
  async function lockEditable(
    write: PostWrite,
    principal: Principal,
    id: string,
    ifMatch: string | undefined,
  ): Promise<PostRecord> {
    await lockForEdit(write, principal, id)
    const post = (await write.find(id))!
    checkIfMatch(ifMatch, toPost(post))
    return post
  }

  return {
    async create(principal: Principal, input: CreatePost): Promise<Post> {
      refuseBlank(input.title, '/body/title')
      refuseBlank(input.body, '/body/body')
      const slug = input.slug ?? (await slugOfTitle(input.title))
      const status: PostStatus = input.status ?? 'draft'
      if (status !== 'scheduled' && input.publishedAt !== undefined)
        throw invalid('/body/publishedAt', PUBLISHED_AT_ONLY_SCHEDULED)
      const publishedAt =
        status === 'scheduled'
          ? futureDate(input.publishedAt, '/body/publishedAt')
          : status === 'published'
            ? new Date()
            : null
      const html = await render(input.body, principal)
      const created = await store.transaction(async (write) => {
        const categoryIds = known(await lockCategories(write, input.categoryIds))
        const excerpt = input.excerpt ?? deriveExcerpt(input.body)
        const id = await write.create(
          principal.userId,
          { title: input.title, body: input.body, html, excerpt, status, publishedAt },
          categoryIds,
          slug,
        )
        // Claimed only when published; a draft's slug has only to be free for its author.
        const holder = { id, authorId: principal.userId, slug }
        await settleSlug(write.slugs, holder, slug, input.slug !== undefined, status === 'published')
        await write.reindex(id, input.title, input.body)
        if (status === 'scheduled') {
          const publishJobId = await publications.schedule(id, publishedAt!, write.sql)
          await write.update(id, { publishJobId })
        }
        // Read while the categories are still locked: a category deleted right after the commit
        // would otherwise be read as a filing without its category.
        const post = (await write.find(id))!
        if (status === 'published') await events.emit(write.sql, 'post.published', toPost(post))
        return post
      })
      // A new post is in no post cache; a published one is in lists.
      if (status === 'published') await changes.changed({ createdPostId: created.id })
      return toPost(created)
    },

    async get(principal: Principal | null, id: string): Promise<Post> {
      const post = await store.find(id)
      if (!post || !canSee(principal, post)) throw postNotFound()
      return toPost(post)
    },

    /**
     * GET /posts/{id}: the post and its ETag, from memory when cached. Who may see it is checked
     * here on every call, cached or not: the cache holds drafts too.
     */
    async read(principal: Principal | null, id: string): Promise<CachedPost> {
      return visibleTo(principal, await cache.get(id))
    },

    /** As read, when the post is in memory, at once; undefined when it must be read. */
    readFromMemory(principal: Principal | null, id: string): CachedPost | undefined {
      const cached = cache.peek(id)
      return cached && visibleTo(principal, cached)
    },

    /**
     * getPostBySlug: as read, by a slug the post has or had (and keeps), from memory when the slug
     * is known there. A slug that led to a post gone since is asked of the database again (another
     * post may have taken it); a slug read from the database names the post's current slug, and a
     * cached post that shows another one is older than the database (the notification of its
     * change is on its way): it is read again, so a new slug never shows the post as it was.
     */
    async readBySlug(principal: Principal | null, slug: string): Promise<CachedPost> {
      let found = await slugs.get(slug)
      let cached = found && (await cache.get(found.id))
      if (found !== null && cached === null && found.current === undefined) {
        slugs.forget(slug)
        found = await slugs.get(slug)
        cached = found && (await cache.get(found.id))
      }
      if (found?.current !== undefined && cached && cached.post.slug !== found.current) {
        cache.invalidate({ postId: found.id })
        cached = await cache.get(found.id)
      }
      // Slugs claimed lead to published posts; a signed-in caller's own unpublished post, which
      // claims none, is found by its author (admins included, but only their own: other authors'
      // unpublished posts may share a slug, and are found by id).
      if (principal !== null && (cached === null || cached.post.status !== 'published')) {
        const own = await store.findOwnUnpublished(principal.userId, slug)
        if (own !== null) cached = await cache.get(own)
      }
      return visibleTo(principal, cached)
    },

    /** The post's owner and status, or 404 POST_NOT_FOUND when it does not exist for this caller. */
    async findVisible(principal: Principal | null, id: string) {
      const post = await store.findOwnerAndStatus(id)
      if (!post || !canSee(principal, post)) throw postNotFound()
      return post
    },

    async update(principal: Principal, id: string, input: UpdatePost, ifMatch: string | undefined): Promise<Post> {
      refuseBlank(input.title, '/body/title')
      refuseBlank(input.body, '/body/body')
      // Only for a caller who may change the post (checked again, locked, in the transaction):
      // rendering costs, and a refusal is 404 or 403 before it is about the body.
      let html: string | undefined
      if (input.body !== undefined) {
        editableBy(principal, await store.findOwnerAndStatus(id))
        html = await render(input.body, principal)
      }
      const updated = await store.transaction(async (write) => {
        // The categories before the post, the order deleteCategory locks them in (its category,
        // then the posts filed there): the opposite order could deadlock with it.
        const categories = input.categoryIds === undefined ? undefined : await lockCategories(write, input.categoryIds)
        const current = await lockEditable(write, principal, id, ifMatch)
        const status = input.status ?? current.status
        let publishedAt: Date | null
        if (status === 'scheduled') {
          const keep = input.publishedAt === undefined && current.status === 'scheduled'
          publishedAt = futureDate(keep ? current.publishedAt?.toISOString() : input.publishedAt, '/body/publishedAt')
        } else {
          if (input.publishedAt !== undefined) throw invalid('/body/publishedAt', PUBLISHED_AT_ONLY_SCHEDULED)
          publishedAt = status === 'draft' ? null : current.status === 'published' ? current.publishedAt : new Date()
        }
        const body = input.body ?? current.body
        const excerpt = input.excerpt ?? (input.body !== undefined ? deriveExcerpt(body) : current.excerpt)
        // The publication job follows the post: a new time replaces it, leaving `scheduled` cancels it.
        const rescheduled = status === 'scheduled' && publishedAt!.getTime() !== current.publishedAt?.getTime()
        let publishJobId = current.publishJobId
        if (publishJobId !== null && (rescheduled || status !== 'scheduled')) {
          await publications.cancel(publishJobId, write.sql)
          publishJobId = null
        }
        if (rescheduled) publishJobId = await publications.schedule(id, publishedAt!, write.sql)
        await write.update(id, { title: input.title, body, html, excerpt, status, publishedAt, publishJobId })
        // A new body whose HTML is the old one's looks to the database like an edit by a writer
        // that does not render (the migration post_html's trigger), which drops html: set it again,
        // in a statement that leaves the body alone.
        if (html !== undefined && html === current.html && body !== current.body) await write.update(id, { html })
        if (categories !== undefined) await write.fileUnder(id, known(categories))
        // A slug is claimed while its post is published (post-slugs.ts): unpublishing lets go of
        // every slug it claims, publishing claims its slug (or the one sent), numbered when a
        // published post took it meanwhile and the author did not send it now.
        const [was, is] = [current.status === 'published', status === 'published']
        const holder = { id, authorId: current.authorId, slug: current.slug }
        if (was && !is) {
          // Under the author's lock, as every slug check is: a draft of theirs checking a slug
          // between this release and this post's new status must not find it free of both.
          await write.slugs.lockAuthor(current.authorId)
          await write.slugs.release(id)
        }
        if (!was && is)
          await settleSlug(write.slugs, holder, input.slug ?? current.slug, input.slug !== undefined, true)
        else if (input.slug !== undefined) await changeSlug(write.slugs, { ...holder, published: is }, input.slug)
        if (input.title !== undefined || input.body !== undefined)
          await write.reindex(id, input.title ?? current.title, body)
        const post = (await write.find(id))!
        const published = current.status !== 'published' && status === 'published'
        await events.emit(write.sql, published ? 'post.published' : 'post.updated', toPost(post))
        // Public lists hold published posts only: a post that is not and was not published is in none.
        return { post, listed: current.status === 'published' || status === 'published' }
      })
      await changes.changed({ postId: id, listsChanged: updated.listed })
      return toPost(updated.post)
    },

    async remove(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
      const removed = await store.transaction(async (write) => {
        const post = await lockEditable(write, principal, id, ifMatch)
        if (post.publishJobId !== null) await publications.cancel(post.publishJobId, write.sql)
        // The thumbnail rows go with the post (cascade); the images behind them, with the sweep.
        await write.remove(id)
        await events.emit(write.sql, 'post.deleted', toPost(post))
        return { hadThumbnail: post.thumbnail.length > 0, listed: post.status === 'published' }
      })
      await changes.changed({ postId: id, listsChanged: removed.listed })
      if (removed.hadThumbnail) await requestImageSweep()
    },

    /**
     * listPosts: the page as JSON, its paging and its ETag. Published lists without a search are
     * the same for every caller and come from the list cache; the others are read every time.
     */
    async list(principal: Principal | null, query: ListPostsQuery): Promise<ListedPosts> {
      if ((query.status ?? 'published') !== 'published' || query.q !== undefined) return readList(principal, query)
      // Ids are keyed lower-cased, as they are read; slugs are lower case.
      const key = [query.category?.toLowerCase(), query.author?.toLowerCase(), query.cursor, query.limit]
      return lists.get(JSON.stringify(key), await listGeneration.current(), () => readList(null, query))
    },

    /** The publish-post job: publishes a scheduled post whose time has come, and says so to webhooks in its transaction. */
    async publishIfDue(id: string): Promise<boolean> {
      const published = await store.transaction(async (write) => {
        if (!(await write.publishIfDue(id))) return false
        // Its slug is claimed now; a published post that took it meanwhile leaves it the next number.
        const due = (await write.find(id))!
        await settleSlug(write.slugs, { id, authorId: due.authorId, slug: due.slug }, due.slug, false, true)
        await events.emit(write.sql, 'post.published', toPost((await write.find(id))!))
        return true
      })
      if (published) await changes.changed({ postId: id, listsChanged: true })
      return published
    },
  }
}

export type PostService = ReturnType<typeof makePostService>
