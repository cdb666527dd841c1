// Reading posts: GET /posts/{id} and getPostBySlug through the post and slug caches, listPosts
// through the list cache when the list is public, and the rights check comments and thumbnails
// make (findVisible). Who may see a post is visibility.ts's; every read checks it, cached or not.
import { notFound } from '../../errors/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, encodeCursor } from '../../cursor.ts'
import type { Principal } from '../../auth/principal.ts'
import type { CachedPost } from './post-cache.ts'
import type { ListedPage, PostStatus, PostStore } from './post-store.ts'
import { listEtagOf, pageMetaBytes, type ListedPosts } from './list-cache.ts'
import { safeSearchText } from '../search/search-query.ts'
import type { Post } from './post-view.ts'
import { canSee, listScope } from './visibility.ts'
import type { PostServiceOptions } from './posts.ts'

const postNotFound = () => notFound('POST_NOT_FOUND', 'Post')

/** A cached post the caller may see, or 404 (the cache holds drafts too). */
function visibleTo(principal: Principal | null, cached: CachedPost | null): CachedPost {
  if (!cached || !canSee(principal, { authorId: cached.post.author.id, status: cached.post.status }))
    throw postNotFound()
  return cached
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

/** What GET /posts/{id}'s cache loads on a miss: the post as stored, whoever may see it, as the JSON sent. */
export const loadPost = (store: PostStore) => (id: string) => store.findJson(id)

type ReadOptions = Pick<PostServiceOptions, 'store' | 'cache' | 'slugs' | 'lists' | 'listGeneration' | 'pageMaxBytes'>

export function makePostReads({ store, cache, slugs, lists, listGeneration, pageMaxBytes }: ReadOptions) {
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

  return {
    async get(principal: Principal | null, id: string): Promise<Post> {
      const json = await store.findJson(id)
      const post = json === null ? null : (JSON.parse(json) as Post)
      if (!post || !canSee(principal, { authorId: post.author.id, status: post.status })) throw postNotFound()
      return post
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
  }
}
