// The read figures `npm run bench` compares with its bare peers (scripts/bench/equal-work.ts):
// cached ones on a server with its caches on, against the bytes peer; uncached ones on a server
// with them off (POST_CACHE_MAX_ENTRIES=0 turns off the post, slug, list and feed caches alike,
// src/services/caches.ts), against the node:http + pg peer; and same-URL bursts, against the spread.
import type { Figure } from './measure.ts'
import { captureAnswer, startPeer, type FixedAnswer, type Peer } from './peers.ts'
import type { Seeded } from './seed.ts'
import type { FigureSpec, makeEqualWork } from './equal-work.ts'

export interface ReadPaths {
  ping: string[]
  /** Every seeded post, by id and by slug, in the same order. */
  posts: string[]
  slugs: string[]
  /** The feed of all posts and of each category, by slug and by id: every feed the cache keys apart. */
  feeds: string[]
  /** listPosts' first page at limits 1 to `length`, average about 20. */
  firstPages: string[]
  /** Pages of 20 behind the cursor after each of the first `length` posts. */
  cursorPages: string[]
  /** Each category's first page, at limits from 16 on. */
  categoryPages: string[]
}

/** The sequences of paths, `length` distinct paths per list figure (at least twice the connections). */
export async function readPaths(serverUrl: string, seeded: Seeded, length: number): Promise<ReadPaths> {
  const json = async (path: string) =>
    (await (await fetch(`${serverUrl}${path}`)).json()) as {
      data: { id: string; slug: string }[] & { slug: string }
      meta: { page: { nextCursor: string | null } }
    }
  const slugs: string[] = []
  for (const id of seeded.postIds) slugs.push(`/posts/by-slug/${(await json(`/posts/${id}`)).data.slug}`)
  const categories = (await json('/categories?limit=100')).data
  const cursorPages: string[] = []
  for (let after = 1; after <= length; after++)
    cursorPages.push(`/posts?limit=20&cursor=${(await json(`/posts?limit=${after}`)).meta.page.nextCursor}`)
  const perCategory = Math.ceil(length / seeded.categorySlugs.length)
  return {
    ping: ['/ping'],
    posts: seeded.postIds.map((id) => `/posts/${id}`),
    slugs,
    feeds: [
      '/feed.atom',
      ...categories.flatMap(({ id, slug }) => [`/feed.atom?category=${slug}`, `/feed.atom?category=${id}`]),
    ],
    firstPages: Array.from({ length }, (_, index) => `/posts?limit=${index + 1}`),
    cursorPages,
    categoryPages: Array.from({ length: perCategory }, (_, index) =>
      seeded.categorySlugs.map((slug) => `/posts?limit=${16 + index}&category=${slug}`),
    ).flat(),
  }
}

/** The bytes peer, replaying what the server at `serverUrl` answers now to every cached figure's paths. */
export async function startBytesPeer(serverUrl: string, paths: ReadPaths): Promise<Peer> {
  // A feed's Last-Modified is set back while the last change is under 5 seconds old
  // (src/http/headers/conditional.ts): captured before that, it would not be what the server sends later.
  await new Promise((resolve) => setTimeout(resolve, 6_000))
  const fixed: Record<string, FixedAnswer> = {}
  for (const path of [
    ...paths.ping,
    ...paths.posts,
    ...paths.feeds,
    ...paths.firstPages,
    ...paths.cursorPages,
    ...paths.categoryPages,
  ])
    fixed[path] = await captureAnswer(`${serverUrl}${path}`)
  return startPeer({ fixed })
}

type EqualWork = ReturnType<typeof makeEqualWork>

/** The feeds are fewer than the connections: fewer connections for them, so that no two at once ask for one. */
const feedConnections = (paths: ReadPaths, connections: number) =>
  Math.max(1, Math.min(connections, Math.floor(paths.feeds.length / 2)))

/** The cached figures, each against the bytes peer but getPostBySlug's (against getPost's). */
export const cachedSpecs = (paths: ReadPaths, connections: number) =>
  ({
    ping: { name: 'GET /ping', paths: paths.ping, work: 'cached' },
    post: { name: 'getPost, cached', paths: paths.posts, work: 'cached' },
    bySlug: { name: 'getPostBySlug, cached', paths: paths.slugs, work: 'cached' },
    // Cached too, but each read checks the lists' generation (one one-row query), as listPosts does.
    feed: {
      name: 'getFeed, cached',
      paths: paths.feeds,
      work: 'cached',
      readsGeneration: true,
      connections: feedConnections(paths, connections),
    },
    first: { name: 'listPosts first page, cached', paths: paths.firstPages, work: 'cached', readsGeneration: true },
    cursor: {
      name: 'listPosts behind a cursor, cached',
      paths: paths.cursorPages,
      work: 'cached',
      readsGeneration: true,
    },
    category: {
      name: 'listPosts one category, cached',
      paths: paths.categoryPages,
      work: 'cached',
      readsGeneration: true,
    },
  }) satisfies Record<string, FigureSpec>

/**
 * The uncached figures, each against the pg peer but: the bursts of one URL (against the spread),
 * getFeed (against its cached figure) and getPostBySlug (against getPost).
 */
export const uncachedSpecs = (paths: ReadPaths, connections: number) =>
  ({
    post: { name: 'getPost, cache off', paths: paths.posts, work: 'uncached' },
    postMerged: {
      name: 'getPost, cache off, one id',
      paths: [paths.posts[Math.floor(paths.posts.length / 2)]!],
      work: 'merged',
    },
    first: { name: 'listPosts first page, cache off', paths: paths.firstPages, work: 'uncached' },
    cursor: { name: 'listPosts behind a cursor, cache off', paths: paths.cursorPages, work: 'uncached' },
    category: { name: 'listPosts one category, cache off', paths: paths.categoryPages, work: 'uncached' },
    firstMerged: { name: 'listPosts first page, cache off, one URL', paths: ['/posts?limit=20'], work: 'merged' },
    feed: {
      name: 'getFeed, cache off',
      paths: paths.feeds,
      work: 'uncached',
      connections: feedConnections(paths, connections),
    },
    bySlug: { name: 'getPostBySlug, cache off', paths: paths.slugs, work: 'uncached' },
  }) satisfies Record<string, FigureSpec>

/** Every path of `specs` once: a process warm-up reads them all, in turn (the figures' own warm-ups follow). */
const warmPaths = (specs: Record<string, FigureSpec>) => [
  ...new Set(Object.values(specs).flatMap((spec) => spec.paths)),
]

/** On a server with its caches on: every path is read once first, so figures measure hits. */
export async function cachedFigures(
  equal: EqualWork,
  serverUrl: string,
  bytesPeer: Peer,
  paths: ReadPaths,
  connections: number,
) {
  const specs = cachedSpecs(paths, connections)
  const peer = { peer: { url: bytesPeer.url, answers: 'bytes' as const } }
  const { bySlug: _againstGetPost, ...againstPeer } = specs
  await equal.warmProcesses(
    { url: serverUrl, paths: warmPaths(specs) },
    { url: bytesPeer.url, paths: warmPaths(againstPeer) },
  )
  const ping = await equal.compare(specs.ping, serverUrl, peer)
  const post = await equal.compare(specs.post, serverUrl, peer)
  const bySlug = await equal.compare(specs.bySlug, serverUrl, { baseline: post.ours })
  const feed = await equal.compare(specs.feed, serverUrl, peer)
  const first = await equal.compare(specs.first, serverUrl, peer)
  const cursor = await equal.compare(specs.cursor, serverUrl, peer)
  const category = await equal.compare(specs.category, serverUrl, peer)
  return { ping, post, bySlug, feed, first, cursor, category }
}

/** On a server with its caches off: against the pg peer when there is one (PostgreSQL), else alone. */
export async function uncachedFigures(
  equal: EqualWork,
  serverUrl: string,
  pgPeer: Peer | null,
  paths: ReadPaths,
  connections: number,
  cached: { feed: Figure },
) {
  const specs = uncachedSpecs(paths, connections)
  const peer = pgPeer ? { peer: { url: pgPeer.url, answers: 'data' as const } } : {}
  const againstPeer = { post: specs.post, first: specs.first, cursor: specs.cursor, category: specs.category }
  await equal.warmProcesses(
    { url: serverUrl, paths: warmPaths(specs) },
    pgPeer ? { url: pgPeer.url, paths: warmPaths(againstPeer) } : undefined,
  )
  const post = await equal.compare(specs.post, serverUrl, peer)
  const postMerged = await equal.compare(specs.postMerged, serverUrl, { baseline: post.ours })
  const first = await equal.compare(specs.first, serverUrl, peer)
  const cursor = await equal.compare(specs.cursor, serverUrl, peer)
  const category = await equal.compare(specs.category, serverUrl, peer)
  const firstMerged = await equal.compare(specs.firstMerged, serverUrl, { baseline: first.ours })
  const feed = await equal.compare(specs.feed, serverUrl, { baseline: cached.feed })
  const bySlug = await equal.compare(specs.bySlug, serverUrl, { baseline: post.ours })
  return { post, postMerged, first, cursor, category, firstMerged, feed, bySlug }
}
