// The services, each built once from the database, the queue and the configuration. Every store is
// made here, once, and handed to the services that use it; so is every service another one needs.
import { randomUUID } from 'node:crypto'
import type { Logger } from './log.ts'
import { makeAccountCleanup, type AccountCleanup } from './auth/account-cleanup.ts'
import { makeAccountDeletionStore } from './auth/accounts/account-deletion-store.ts'
import { makeAccountEmail, newLinkRequest, type AccountEmail } from './auth/account-email/account-email.ts'
import { makeAccountStore } from './auth/account-store.ts'
import { deleteUnusedTokensIn, makeAccountTokenStore } from './auth/account-email/account-token-store.ts'
import { ADMIN_GRANT_MESSAGES, makeAuthService, toUser, type AuthService } from './auth/auth-service.ts'
import { makePasswordHasher, type PasswordHasher } from './auth/passwords/passwords.ts'
import { makeRateLimitStore, type RateLimitStore } from './auth/rate-limit-store.ts'
import type { Config } from './config.ts'
import { makeCategoryService, type CategoryService } from './content/categories/categories.ts'
import { makeCategoryStore } from './content/categories/category-store.ts'
import { makeCommentService, type CommentService } from './content/comments/comments.ts'
import { makeCommentStore } from './content/comments/comment-store.ts'
import { makeFeedCache, makeFeedService, type FeedCache, type FeedService } from './content/feed/feed.ts'
import { makeHtmlBackfill, type HtmlBackfill } from './content/html/backfill.ts'
import { makeHtmlRenderer } from './content/html/post-html.ts'
import { makeImageStore } from './content/thumbnails/image-store.ts'
import { listPageFootprintBound, makeListCache, type ListCache } from './content/posts/list-cache.ts'
import { makePostCache, type PostCache } from './content/posts/post-cache.ts'
import { makePostChanges } from './content/posts/post-changes.ts'
import { makePostStore } from './content/posts/post-store.ts'
import { makePostSlugStore } from './content/slugs/post-slug-store.ts'
import { makeSlugCache, type SlugCache } from './content/slugs/slug-cache.ts'
import { loadPost, makePostService, type PostService } from './content/posts/posts.ts'
import { makeThumbnailService, type ThumbnailService } from './content/thumbnails/thumbnails.ts'
import { makeUploadRate } from './content/thumbnails/upload-rate.ts'
import type { Database } from './db/database.ts'
import { makeListGeneration } from './db/list-generation.ts'
import { CHANNEL as POST_CACHE_CHANNEL, listenForNotifications, notifyWith } from './db/post-invalidations.ts'
import type { AccessClaims } from './auth/principal.ts'
import { cancelPublication, enqueuePublication } from './jobs/publish-post.ts'
import { enqueueImageSweep } from './jobs/sweep-images.ts'
import { enqueueAccountEmail } from './jobs/account-email.ts'
import { enqueueWelcomeEmail } from './jobs/welcome-email.ts'
import { addImageWorkMetrics } from './metrics/image-work-metrics.ts'
import { addCacheMetrics } from './metrics/cache-metrics.ts'
import { addMailMetrics } from './metrics/mail-metrics.ts'
import { makeRecipientCap, type RecipientCap } from './mail/recipient-cap.ts'
import { makeMetrics, type Metrics } from './metrics/metrics.ts'
import type { Queue } from './queue/queue.ts'
import { enqueueWebhookDelivery } from './jobs/deliver-webhook.ts'
import { DELIVERY_TIMEOUT_MS } from './webhooks/delivery.ts'
import { makeWebhookDispatch, type WebhookDispatch } from './webhooks/dispatch.ts'
import { makeEndpointBreaker } from './webhooks/endpoint-breaker.ts'
import { makeWebhookRetention, type WebhookRetention } from './webhooks/retention.ts'
import { systemResolve, type Resolve } from './webhooks/resolve.ts'
import { makeSecretBox } from './webhooks/secret-box.ts'
import {
  DELIVERIES_QUEUED_CHANNEL,
  makeDeliveriesQueued,
  makeWebhookEvents,
  type DeliveriesQueued,
} from './webhooks/webhook-events.ts'
import { makeWebhookStore } from './webhooks/webhook-store.ts'
import { makeWebhookService, type WebhookService } from './webhooks/webhooks.ts'

/** Past this many posts changed by one account deletion, every cache is emptied instead of naming each. */
const DELETED_ACCOUNT_POSTS_NAMED = 50

/** Distinct public pages kept: the first pages of the front page, of each category and author. */
const LIST_CACHE_MAX_ENTRIES = 2_000
/** Feeds kept: all posts' and each category's, by id and by slug. */
const FEED_CACHE_MAX_ENTRIES = 500

export interface Services {
  config: Config
  database: Database
  queue: Queue
  version: string
  auth: AuthService
  /** Email verification and password reset. */
  accountEmail: AccountEmail
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
  thumbnails: ThumbnailService
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

export interface WebhookOptions {
  /** Resolves webhook hosts, at creation and at delivery (tests make a name turn private). */
  resolve?: Resolve
  /** How long one delivery attempt may take; DELIVERY_TIMEOUT_MS (5 s) unless a test shortens it. */
  timeoutMs?: number
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

export function makeServices({
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
  const stores = {
    accounts: makeAccountStore(prisma),
    deletions: makeAccountDeletionStore(prisma, { databaseTimeoutMs: config.databaseTimeoutMs }),
    accountTokens: makeAccountTokenStore(prisma),
    counters: makeRateLimitStore(prisma),
    posts: makePostStore(prisma, { databaseTimeoutMs: config.databaseTimeoutMs }),
    postSlugs: makePostSlugStore(prisma),
    categories: makeCategoryStore(prisma),
    comments: makeCommentStore(prisma),
    images: makeImageStore(prisma),
    webhooks: makeWebhookStore(prisma),
  }
  // Webhook events go out with the writes that cause them, in their transactions.
  const deliveriesQueued = makeDeliveriesQueued()
  const events = makeWebhookEvents((job, jobId, sql) => enqueueWebhookDelivery(boss, job, jobId, sql))
  const secrets = makeSecretBox(config.jwtSecret)
  const webhookPolicy = {
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    resolve: webhooks.resolve ?? systemResolve,
    log,
  }
  const metrics = makeMetrics({ database, queue })
  const postCache = makePostCache(loadPost(stores.posts), {
    maxEntries: config.postCacheMaxEntries,
    maxBytes: config.postCacheMaxBytes,
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  addCacheMetrics(
    metrics,
    { prefix: 'blog_post_cache', reads: 'GET /posts/{id} reads', entries: 'posts' },
    postCache.stats,
  )
  // Slug → post id for getPostBySlug, in front of the post cache: as many entries, on and off with it.
  const slugCache = makeSlugCache(stores.postSlugs.find, {
    maxEntries: config.postCacheMaxEntries,
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  // Public list pages: a quarter of the post cache's bytes, since a page holds up to a hundred
  // posts; on and off with it (the benchmark's baseline turns both off).
  // Every page within the list page budget is kept (as long as the cache holds one at all).
  const listCache = makeListCache({
    maxEntries: Math.min(config.postCacheMaxEntries, LIST_CACHE_MAX_ENTRIES),
    maxBytes: Math.floor(config.postCacheMaxBytes / 4),
    ttlMs: config.postCacheTtlSeconds * 1000,
    entryMaxBytes: listPageFootprintBound(config.listPageMaxBytes),
  })
  addCacheMetrics(
    metrics,
    { prefix: 'blog_list_cache', reads: 'Public listPosts pages', entries: 'list pages' },
    listCache.stats,
  )
  // Feeds: an eighth of the post cache's bytes (8 MiB by default: 16 feeds at their largest, see
  // atom.ts; none larger than an eighth of that is kept), the same TTL, on and off with it.
  const feedCache = makeFeedCache({
    maxEntries: Math.min(config.postCacheMaxEntries, FEED_CACHE_MAX_ENTRIES),
    maxBytes: Math.floor(config.postCacheMaxBytes / 8),
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  addCacheMetrics(metrics, { prefix: 'blog_feed_cache', reads: 'getFeed reads', entries: 'feeds' }, feedCache.stats)
  const caches = [postCache, listCache, feedCache]
  // On PostgreSQL every instance's caches hear of every write: NOTIFY by the writer, LISTEN by all.
  const listGeneration = makeListGeneration(prisma)
  const changes = makePostChanges(
    [...caches, slugCache],
    database.kind === 'postgres' ? notifyWith(prisma) : null,
    listGeneration,
    log,
  )
  const listener =
    config.databaseUrl === null
      ? null
      : listenForNotifications(
          config.databaseUrl,
          {
            [POST_CACHE_CHANNEL]: (message) => changes.received(message),
            [DELIVERIES_QUEUED_CHANNEL]: () => deliveriesQueued.queued(),
          },
          log,
        )
  // The embedded database hears its own notifications.
  database
    .listen?.(DELIVERIES_QUEUED_CHANNEL, () => deliveriesQueued.queued())
    .catch((error: unknown) =>
      log.warn({ err: error }, 'not listening for queued webhook deliveries: they go at the next poll'),
    )
  const hasher = makePasswordHasher(config.bcryptCost)
  const requestImageSweep = () => enqueueImageSweep(boss, log)
  const passwordHasher = passwords?.(hasher) ?? hasher
  const accountEmail = makeAccountEmail({
    accounts: stores.accounts,
    tokens: stores.accountTokens,
    passwords: passwordHasher,
    config,
    enqueue: (id, job, sql) => enqueueAccountEmail(boss, id, job, sql && { executeSql: sql }),
  })
  const recipientCap = makeRecipientCap(stores.counters, config)
  addMailMetrics(metrics, recipientCap)
  const auth = makeAuthService({
    store: stores.accounts,
    deletions: stores.deletions,
    passwords: passwordHasher,
    config,
    signAccessToken,
    // The welcome mail carries the new address's verification link.
    async onRegistered(user, sql) {
      await enqueueWelcomeEmail(
        boss,
        { userId: user.id, email: user.email, name: user.name, verification: newLinkRequest() },
        { executeSql: sql },
      )
      await events.emit(sql, 'user.registered', toUser(user))
    },
    // Links mailed to the old address stop working; the new address gets its own.
    onEmailChanged: async (change, sql) => {
      await deleteUnusedTokensIn(sql, change.userId)
      await enqueueAccountEmail(boss, randomUUID(), accountEmail.verificationJob(change.userId, change.newEmail), {
        executeSql: sql,
      })
      await enqueueAccountEmail(boss, randomUUID(), { kind: 'email-changed', ...change }, { executeSql: sql })
    },
    onRenamed: (userId) => changes.changed({ authorId: userId }),
    // Their posts leave every page and cache (by author); the posts they commented on show a new count.
    async onDeleted({ userId, commentedPostIds, releasedThumbnails }) {
      await changes.changed({ authorId: userId })
      if (commentedPostIds.length > DELETED_ACCOUNT_POSTS_NAMED) await changes.changedEverything()
      else for (const postId of commentedPostIds) await changes.changed({ postId })
      if (releasedThumbnails) await requestImageSweep()
    },
  })
  const renderer = makeHtmlRenderer()
  const posts = makePostService({
    store: stores.posts,
    publications: {
      schedule: (postId, at, sql) => enqueuePublication(boss, postId, at, { executeSql: sql }),
      cancel: (jobId, sql) => cancelPublication(boss, jobId, { executeSql: sql }),
    },
    requestImageSweep,
    cache: postCache,
    slugs: slugCache,
    lists: listCache,
    listGeneration,
    changes,
    html: renderer,
    events,
    pageMaxBytes: config.listPageMaxBytes,
  })
  const uploads = makeUploadRate(stores.counters, config)
  const thumbnails = makeThumbnailService({
    posts,
    store: stores.posts,
    images: stores.images,
    uploads,
    config,
    requestImageSweep,
    changes,
    events,
  })
  addImageWorkMetrics(metrics, thumbnails.imageWork.stats)
  const services: Services = {
    config,
    database,
    queue,
    version,
    auth,
    accountEmail,
    recipientCap,
    posts,
    slugCache,
    postCache,
    listCache,
    feeds: makeFeedService({
      posts: stores.posts,
      categories: stores.categories,
      cache: feedCache,
      listGeneration,
      publicUrl: config.publicUrl,
      title: config.feedTitle,
    }),
    feedCache,
    categories: makeCategoryService({ store: stores.categories, changes, pageMaxBytes: config.listPageMaxBytes }),
    comments: makeCommentService({
      store: stores.comments,
      posts,
      changes,
      events,
      pageMaxBytes: config.listPageMaxBytes,
    }),
    thumbnails,
    postHtml: makeHtmlBackfill({ store: stores.posts, renderer, changes, log }),
    accountCleanup: makeAccountCleanup(stores),
    rateLimits: stores.counters,
    metrics,
    webhooks: makeWebhookService({
      store: stores.webhooks,
      secrets,
      urls: webhookPolicy,
      pageMaxBytes: config.listPageMaxBytes,
    }),
    webhookDispatch: makeWebhookDispatch({
      store: stores.webhooks,
      secrets,
      policy: { ...webhookPolicy, timeoutMs: webhooks.timeoutMs ?? DELIVERY_TIMEOUT_MS },
      breaker: makeEndpointBreaker(),
      log,
    }),
    webhookRetention: makeWebhookRetention(stores.webhooks),
    deliveriesQueued,
  }
  return {
    services,
    /** Closes what the services hold open: the LISTEN connection, the password hashing and rendering threads. */
    async close() {
      await listener?.close()
      await hasher.close()
      await renderer.close()
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
