// Posts: the service the handlers call, its reads (post-reads.ts: caches, lists, rights) and its
// writes (post-writes.ts: status and scheduling rules, optimistic concurrency, slugs); who may see
// and change a post is visibility.ts's.
import type { PostCache } from './post-cache.ts'
import type { PostChanges } from './post-changes.ts'
import type { SlugCache } from '../slugs/slug-cache.ts'
import type { ListGeneration } from '../../db/list-generation.ts'
import type { PostStore } from './post-store.ts'
import type { ListCache } from './list-cache.ts'
import type { HtmlRenderer } from '../html/post-html.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import { makePostReads } from './post-reads.ts'
import { makePostWrites } from './post-writes.ts'
import type { Publications } from './post-write-rules.ts'
import type { ImageUrls } from '../../images/image-urls.ts'
import type { RecordRevision } from '../revisions/record-revision.ts'

export { loadPost } from './post-reads.ts'
export type { Publications } from './post-write-rules.ts'

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
  /** How image urls in bodies are recognised and written (media URLs, src/images/image-urls.ts). */
  mediaUrls: ImageUrls
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts). */
  imageUrls: string
  /** Writes a revision in each write's transaction (src/content/revisions/record-revision.ts). */
  recordRevision: RecordRevision
}

export function makePostService(options: PostServiceOptions) {
  return { ...makePostReads(options), ...makePostWrites(options) }
}

export type PostService = ReturnType<typeof makePostService>
