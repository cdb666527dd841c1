// The content services, as makeServices builds them: posts (with their scheduled publication and
// the image sweep their writes ask for), thumbnails and media items (one image pipeline and upload
// allowance for both), the feed, categories, comments and the html backfill. Each is handed the caches it reads and the `changes` it tells of its writes.
import type { RateLimitStore } from '../auth/rate-limit-store.ts'
import type { Config } from '../config.ts'
import { makeCategoryService } from '../content/categories/categories.ts'
import type { CategoryStore } from '../content/categories/category-store.ts'
import type { CommentStore } from '../content/comments/comment-store.ts'
import { makeCommentService } from '../content/comments/comments.ts'
import type { CommentModerationStore } from '../content/comments/comment-moderation-store.ts'
import { makeCommentModeration } from '../content/comments/moderation.ts'
import { makeFeedService } from '../content/feed/feed.ts'
import { makeHtmlBackfill } from '../content/html/backfill.ts'
import { makeHtmlRenderer } from '../content/html/post-html.ts'
import type { PostStore } from '../content/posts/post-store.ts'
import { makePostService, type RequestImageSweep } from '../content/posts/posts.ts'
import type { ImageStore } from '../content/thumbnails/image-store.ts'
import { makeMediaService } from '../content/media/media.ts'
import type { MediaStore } from '../content/media/media-store.ts'
import { makeImageUploads } from '../images/image-uploads.ts'
import { makeThumbnailService } from '../content/thumbnails/thumbnails.ts'
import { makeUploadRate } from '../content/thumbnails/upload-rate.ts'
import type { ListGeneration } from '../db/list-generation.ts'
import { makeRevisionRecorder } from '../content/revisions/record-revision.ts'
import type { RevisionStore } from '../content/revisions/revision-store.ts'
import { makeRevisionService } from '../content/revisions/revisions.ts'
import { cancelPublication, enqueuePublication } from '../jobs/publish-post.ts'
import type { Logger } from '../log.ts'
import { addImageWorkMetrics } from '../metrics/image-work-metrics.ts'
import type { Metrics } from '../metrics/metrics.ts'
import type { Queue } from '../queue/queue.ts'
import type { WebhookEvents } from '../webhooks/webhook-events.ts'
import type { Caches } from './caches.ts'
import { imageUrlPrefix, imageUrlsOf } from '../storage/image-url.ts'
import type { UploadGate } from '../storage/upload-gate.ts'

export interface ContentServicesOptions {
  config: Config
  queue: Queue
  stores: {
    posts: PostStore
    categories: CategoryStore
    comments: CommentStore
    commentModeration: CommentModerationStore
    images: ImageStore
    media: MediaStore
    counters: RateLimitStore
    revisions: RevisionStore
  }
  /** Bounds the uploads that wait for the object store inside a transaction (src/storage/upload-gate.ts). */
  uploadGate: UploadGate
  caches: Caches
  listGeneration: ListGeneration
  events: WebhookEvents
  requestImageSweep: RequestImageSweep
  metrics: Metrics
  log: Logger
}

export function makeContentServices({
  config,
  queue,
  stores,
  uploadGate,
  caches,
  listGeneration,
  events,
  requestImageSweep,
  metrics,
  log,
}: ContentServicesOptions) {
  const { boss } = queue
  const { changes } = caches
  const renderer = makeHtmlRenderer()
  const revisionLimits = { max: config.postRevisionsMax, maxBytes: config.postRevisionsMaxBytes }
  const recordRevision = makeRevisionRecorder(revisionLimits)
  const posts = makePostService({
    store: stores.posts,
    publications: {
      schedule: (postId, at, sql) => enqueuePublication(boss, postId, at, { executeSql: sql }),
      cancel: (jobId, sql) => cancelPublication(boss, jobId, { executeSql: sql }),
    },
    requestImageSweep,
    cache: caches.postCache,
    slugs: caches.slugCache,
    lists: caches.listCache,
    listGeneration,
    changes,
    html: renderer,
    events,
    pageMaxBytes: config.listPageMaxBytes,
    imageUrls: imageUrlPrefix(config),
    mediaUrls: imageUrlsOf(config),
    recordRevision,
  })
  const uploads = makeUploadRate(stores.counters, config)
  const imageUploads = makeImageUploads(config)
  const thumbnails = makeThumbnailService({
    posts,
    store: stores.posts,
    images: stores.images,
    uploads,
    uploadGate,
    imageUploads,
    requestImageSweep,
    changes,
    events,
    imageUrls: imageUrlPrefix(config),
    recordRevision,
  })
  addImageWorkMetrics(metrics, imageUploads.pool.stats)
  return {
    posts,
    feeds: makeFeedService({
      posts: stores.posts,
      categories: stores.categories,
      cache: caches.feedCache,
      listGeneration,
      publicUrl: config.publicUrl,
      title: config.feedTitle,
    }),
    categories: makeCategoryService({ store: stores.categories, changes, pageMaxBytes: config.listPageMaxBytes }),
    comments: makeCommentService({
      store: stores.comments,
      posts,
      changes,
      events,
      pageMaxBytes: config.listPageMaxBytes,
      policy: {
        moderation: config.commentModeration,
        maxLinks: config.commentMaxLinks,
        minIntervalSeconds: config.commentMinIntervalSeconds,
      },
    }),
    commentModeration: makeCommentModeration({
      store: stores.commentModeration,
      comments: stores.comments,
      changes,
      events,
      pageMaxBytes: config.listPageMaxBytes,
    }),
    thumbnails,
    revisions: makeRevisionService({
      store: stores.revisions,
      posts: stores.posts,
      postService: posts,
      limits: revisionLimits,
      pageMaxBytes: config.listPageMaxBytes,
      imageUrls: imageUrlPrefix(config),
    }),
    media: makeMediaService({
      store: stores.media,
      uploads,
      uploadGate,
      imageUploads,
      config,
      imageUrls: imageUrlPrefix(config),
      changes,
      events,
      requestImageSweep,
    }),
    postHtml: makeHtmlBackfill({ store: stores.posts, renderer, changes, log }),
    /** Stops the rendering threads, once the renderings queued have finished. */
    close: () => renderer.close(),
  }
}
