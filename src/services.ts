// The services, each built once from the database, the queue and the configuration. Every store is
// made here, once, and handed to the services that use it; so is every service another one needs.
// The services are built in parts, by concern, in src/services/: the webhooks, the caches and
// what tells them of writes, the accounts, the content.
import type { Logger } from './log.ts'
import { makeAccountDeletionStore } from './auth/accounts/account-deletion-store.ts'
import type { AccountEmail } from './auth/account-email/account-email.ts'
import { makeAccountStore } from './auth/account-store.ts'
import { makeAccountTokenStore } from './auth/account-email/account-token-store.ts'
import type { ApiTokens } from './auth/api-tokens/api-tokens.ts'
import { makeApiTokenStore } from './auth/api-tokens/api-token-store.ts'
import type { AccountCleanup } from './auth/account-cleanup.ts'
import { ADMIN_GRANT_MESSAGES, type AuthService } from './auth/auth-service.ts'
import type { PasswordHasher } from './auth/passwords/passwords.ts'
import type { AccessClaims } from './auth/principal.ts'
import { makeRateLimitStore, type RateLimitStore } from './auth/rate-limit-store.ts'
import type { Config } from './config.ts'
import type { CategoryService } from './content/categories/categories.ts'
import { makeCategoryStore } from './content/categories/category-store.ts'
import type { CommentService } from './content/comments/comments.ts'
import { makeCommentStore } from './content/comments/comment-store.ts'
import { makeCommentModerationStore } from './content/comments/comment-moderation-store.ts'
import type { CommentModeration } from './content/comments/moderation.ts'
import type { FeedCache, FeedService } from './content/feed/feed.ts'
import type { HtmlBackfill } from './content/html/backfill.ts'
import type { ListCache } from './content/posts/list-cache.ts'
import type { PostCache } from './content/posts/post-cache.ts'
import { makePostStore } from './content/posts/post-store.ts'
import type { PostService } from './content/posts/posts.ts'
import { makePostSlugStore } from './content/slugs/post-slug-store.ts'
import type { SlugCache } from './content/slugs/slug-cache.ts'
import type { ThumbnailService } from './content/thumbnails/thumbnails.ts'
import { imageUrlPrefix } from './storage/image-url.ts'
import { makeStorage, transactionTimeout, type Storage } from './storage/storage.ts'
import { makeImageStore } from './content/thumbnails/image-store.ts'
import { makeMediaStore } from './content/media/media-store.ts'
import { makeRevisionStore } from './content/revisions/revision-store.ts'
import type { RevisionService } from './content/revisions/revisions.ts'
import type { MediaService } from './content/media/media.ts'
import type { Database } from './db/database.ts'
import { makeListGeneration } from './db/list-generation.ts'
import { notifyWith } from './db/post-invalidations.ts'
import { enqueueImageSweep } from './jobs/sweep-images.ts'
import type { RecipientCap } from './mail/recipient-cap.ts'
import { makeMetrics, type Metrics } from './metrics/metrics.ts'
import { addStorageMetrics } from './metrics/storage-metrics.ts'
import type { Queue } from './queue/queue.ts'
import { makeAccountServices } from './services/accounts.ts'
import { makeCaches } from './services/caches.ts'
import { makeContentServices } from './services/content.ts'
import { listenForWrites } from './services/notifications.ts'
import { makeWebhookServices, type WebhookOptions } from './services/webhooks.ts'
import type { WebhookDispatch } from './webhooks/dispatch.ts'
import type { WebhookRetention } from './webhooks/retention.ts'
import type { DeliveriesQueued } from './webhooks/webhook-events.ts'
import { makeWebhookStore } from './webhooks/webhook-store.ts'
import type { WebhookService } from './webhooks/webhooks.ts'

export type { WebhookOptions }

export interface Services {
  config: Config
  database: Database
  queue: Queue
  version: string
  auth: AuthService
  /** Email verification and password reset. */
  accountEmail: AccountEmail
  /** Integrations' API tokens: made, listed, revoked, and checked on each request that carries one. */
  apiTokens: ApiTokens
  /** The cap of mails to each address, every kind of mail counted (the mail workers check it). */
  recipientCap: RecipientCap
  posts: PostService
  /** getPostBySlug's slug → post id map, in front of postCache. */
  slugCache: SlugCache
  /** GET /posts/{id}'s cache; its stats are for operators. */
  postCache: PostCache
  /** listPosts' cache of public pages; its stats are for operators. */
  listCache: ListCache
  /** getFeed. */
  feeds: FeedService
  /** getFeed's cache of feeds; its stats are for operators. */
  feedCache: FeedCache
  categories: CategoryService
  comments: CommentService
  commentModeration: CommentModeration
  thumbnails: ThumbnailService
  /** Post revisions: listPostRevisions, getPostRevision, restorePostRevision. */
  revisions: RevisionService
  /** Each user's media library (uploadMedia and the rest of the `media` tag). */
  media: MediaService
  /** Where image bytes are kept (src/storage/): getImage's reads, /health's check. */
  storage: Storage
  /** What every image url starts with (imageUrlPrefix). */
  imageUrls: string
  /** Renders the html of posts that have none, which the render-posts job runs. */
  postHtml: HtmlBackfill
  /** The account tables' clean-up, which the clean-up-accounts job runs. */
  accountCleanup: AccountCleanup
  /** The rate-limit counters in the database, which the login limits (http/) count with. */
  rateLimits: RateLimitStore
  /** Prometheus metrics; `metrics.addCollector` takes collectors made elsewhere. */
  metrics: Metrics
  /** The admin operations on webhook endpoints. */
  webhooks: WebhookService
  /** One webhook delivery attempt, which the deliver-webhook job runs. */
  webhookDispatch: WebhookDispatch
  /** Deletes old webhook events and attempts, which the clean-up-webhooks job runs. */
  webhookRetention: WebhookRetention
  /** Fired when a committed transaction queued webhook deliveries: the delivery worker looks at once. */
  deliveriesQueued: DeliveriesQueued
}

export interface ServicesOptions {
  config: Config
  database: Database
  queue: Queue
  /** The contract's version, which GET /ping reports. */
  version: string
  log: Logger
  signAccessToken: (claims: AccessClaims) => string
  /** Wraps the password hasher; tests use it to pause a request between its password check and its write. */
  passwords?: (hasher: PasswordHasher) => PasswordHasher
  webhooks?: WebhookOptions
}

/** Every store, made once: with src/db/, the only code that talks to the database. */
function makeStores({ prisma }: Database, config: Config, storage: Storage) {
  // Built first: the post store writes thumbnails' images through it, as the media store does.
  const images = makeImageStore(prisma, storage)
  return {
    accounts: makeAccountStore(prisma),
    deletions: makeAccountDeletionStore(prisma, { databaseTimeoutMs: config.databaseTimeoutMs }),
    accountTokens: makeAccountTokenStore(prisma),
    apiTokens: makeApiTokenStore(prisma),
    counters: makeRateLimitStore(prisma),
    posts: makePostStore(prisma, {
      databaseTimeoutMs: config.databaseTimeoutMs,
      imageUrls: imageUrlPrefix(config),
      storeImages: images.storeImages,
      transactionTimeoutMs: transactionTimeout(storage),
    }),
    postSlugs: makePostSlugStore(prisma),
    categories: makeCategoryStore(prisma),
    comments: makeCommentStore(prisma),
    commentModeration: makeCommentModerationStore(prisma),
    images,
    media: makeMediaStore(prisma, {
      storeImages: images.storeImages,
      transactionTimeoutMs: transactionTimeout(storage),
    }),
    webhooks: makeWebhookStore(prisma),
    revisions: makeRevisionStore(prisma),
  }
}

export async function makeServices({
  config,
  database,
  queue,
  version,
  log,
  signAccessToken,
  passwords,
  webhooks = {},
}: ServicesOptions) {
  const { prisma } = database
  const { boss } = queue
  const storage = await makeStorage(config)
  // /health and the uploads' fail-fast read the bucket's state this keeps current.
  storage.watch()
  const stores = makeStores(database, config, storage)
  const webhookServices = makeWebhookServices({ config, queue, store: stores.webhooks, log, options: webhooks })
  const { events, deliveriesQueued } = webhookServices
  const metrics = makeMetrics({ database, queue })
  addStorageMetrics(metrics, storage)
  const listGeneration = makeListGeneration(prisma)
  // On PostgreSQL every instance's caches hear of every write: NOTIFY by the writer, LISTEN by all.
  const broadcast = database.kind === 'postgres' ? notifyWith(prisma) : null
  const caches = makeCaches({ config, stores, listGeneration, broadcast, metrics, log })
  const { changes } = caches
  const listener = listenForWrites({ config, database, changes, deliveriesQueued, log })
  const requestImageSweep = () => enqueueImageSweep(boss, log)
  const accounts = makeAccountServices({
    config,
    queue,
    stores,
    events,
    changes,
    requestImageSweep,
    metrics,
    signAccessToken,
    passwords,
  })
  const content = makeContentServices({
    config,
    queue,
    stores,
    uploadGate: storage.uploads,
    caches,
    listGeneration,
    events,
    requestImageSweep,
    metrics,
    log,
  })
  const services: Services = {
    config,
    storage,
    imageUrls: imageUrlPrefix(config),
    database,
    queue,
    version,
    auth: accounts.auth,
    accountEmail: accounts.accountEmail,
    apiTokens: accounts.apiTokens,
    recipientCap: accounts.recipientCap,
    posts: content.posts,
    slugCache: caches.slugCache,
    postCache: caches.postCache,
    listCache: caches.listCache,
    feeds: content.feeds,
    feedCache: caches.feedCache,
    categories: content.categories,
    comments: content.comments,
    commentModeration: content.commentModeration,
    thumbnails: content.thumbnails,
    revisions: content.revisions,
    media: content.media,
    postHtml: content.postHtml,
    accountCleanup: accounts.accountCleanup,
    rateLimits: stores.counters,
    metrics,
    webhooks: webhookServices.webhooks,
    webhookDispatch: webhookServices.webhookDispatch,
    webhookRetention: webhookServices.webhookRetention,
    deliveriesQueued,
  }
  return {
    services,
    /** Closes what the services hold open: the LISTEN connection, the password hashing and rendering threads. */
    async close() {
      await listener?.close()
      await accounts.close()
      await content.close()
      storage.close()
    },
  }
}

/**
 * What the database holds before the first request: the first admin when ADMIN_EMAIL is set (once
 * per address, ever: see bootstrapAdmin), and a default category.
 */
export async function prepareData(services: Services, log: Logger): Promise<void> {
  const { adminEmail, adminPassword } = services.config
  if (adminEmail !== null && adminPassword !== null) {
    const outcome = await services.auth.bootstrapAdmin(adminEmail, adminPassword)
    log[outcome === 'taken-over' ? 'warn' : 'info']({ adminEmail, outcome }, ADMIN_GRANT_MESSAGES[outcome])
  }
  await services.categories.ensureDefault()
}
