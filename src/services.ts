// The services, each built once from the database, the queue and the configuration. Every store is
// made here, once, and handed to the services that use it; so is every service another one needs.
import type { Logger } from './log.ts'
import { makeAccountCleanup, type AccountCleanup } from './auth/account-cleanup.ts'
import { makeAccountStore } from './auth/account-store.ts'
import { ADMIN_GRANT_MESSAGES, makeAuthService, type AuthService } from './auth/auth-service.ts'
import { makePasswordHasher, type PasswordHasher } from './auth/passwords.ts'
import { makeRateLimitStore, type RateLimitStore } from './auth/rate-limit-store.ts'
import type { Config } from './config.ts'
import { makeCategoryService, type CategoryService } from './content/categories.ts'
import { makeCategoryStore } from './content/category-store.ts'
import { makeCommentService, type CommentService } from './content/comments.ts'
import { makeCommentStore } from './content/comment-store.ts'
import { makeImageStore } from './content/image-store.ts'
import { makeListCache, type ListCache } from './content/list-cache.ts'
import { makePostCache, type PostCache } from './content/post-cache.ts'
import { makePostChanges } from './content/post-changes.ts'
import { makePostStore } from './content/post-store.ts'
import { loadPost, makePostService, type PostService } from './content/posts.ts'
import { makeThumbnailService, type ThumbnailService } from './content/thumbnails.ts'
import { makeUploadRate } from './content/upload-rate.ts'
import type { Database } from './db/database.ts'
import { makeListGeneration } from './db/list-generation.ts'
import { listenForInvalidations, notifyWith } from './db/post-invalidations.ts'
import type { AccessClaims } from './auth/principal.ts'
import { cancelPublication, enqueuePublication } from './jobs/publish-post.ts'
import { enqueueImageSweep } from './jobs/sweep-images.ts'
import { enqueueWelcomeEmail } from './jobs/welcome-email.ts'
import { addImageWorkMetrics } from './metrics/image-work-metrics.ts'
import { addCacheMetrics } from './metrics/cache-metrics.ts'
import { makeMetrics, type Metrics } from './metrics/metrics.ts'
import type { Queue } from './queue/queue.ts'

/** Distinct public pages kept: the first pages of the front page, of each category and author. */
const LIST_CACHE_MAX_ENTRIES = 2_000

export interface Services {
  config: Config
  database: Database
  queue: Queue
  version: string
  auth: AuthService
  posts: PostService
  /** GET /posts/{id}'s cache; its stats are for operators. */
  postCache: PostCache
  /** listPosts' cache of public pages; its stats are for operators. */
  listCache: ListCache
  categories: CategoryService
  comments: CommentService
  thumbnails: ThumbnailService
  /** The account tables' clean-up, which the clean-up-accounts job runs. */
  accountCleanup: AccountCleanup
  /** The rate-limit counters in the database, which the login limits (http/) count with. */
  rateLimits: RateLimitStore
  /** Prometheus metrics; `metrics.addCollector` takes collectors made elsewhere. */
  metrics: Metrics
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
}

export function makeServices({ config, database, queue, version, log, signAccessToken, passwords }: ServicesOptions) {
  const { prisma } = database
  const { boss } = queue
  const stores = {
    accounts: makeAccountStore(prisma),
    counters: makeRateLimitStore(prisma),
    posts: makePostStore(prisma, { databaseTimeoutMs: config.databaseTimeoutMs }),
    categories: makeCategoryStore(prisma),
    comments: makeCommentStore(prisma),
    images: makeImageStore(prisma),
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
  // Public list pages: a quarter of the post cache's bytes, since a page holds up to a hundred
  // posts; on and off with it (the benchmark's baseline turns both off).
  const listCache = makeListCache({
    maxEntries: Math.min(config.postCacheMaxEntries, LIST_CACHE_MAX_ENTRIES),
    maxBytes: Math.floor(config.postCacheMaxBytes / 4),
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  addCacheMetrics(
    metrics,
    { prefix: 'blog_list_cache', reads: 'Public listPosts pages', entries: 'list pages' },
    listCache.stats,
  )
  const caches = [postCache, listCache]
  // On PostgreSQL every instance's caches hear of every write: NOTIFY by the writer, LISTEN by all.
  const listGeneration = makeListGeneration(prisma)
  const changes = makePostChanges(caches, database.kind === 'postgres' ? notifyWith(prisma) : null, listGeneration, log)
  const listener =
    config.databaseUrl === null
      ? null
      : listenForInvalidations(config.databaseUrl, (message) => changes.received(message), log)
  const hasher = makePasswordHasher(config.bcryptCost)
  const auth = makeAuthService({
    store: stores.accounts,
    passwords: passwords?.(hasher) ?? hasher,
    config,
    signAccessToken,
    onRegistered: (user, sql) =>
      enqueueWelcomeEmail(boss, { userId: user.id, email: user.email, name: user.name }, { executeSql: sql }),
    onRenamed: (userId) => changes.changed({ authorId: userId }),
  })
  const requestImageSweep = () => enqueueImageSweep(boss, log)
  const posts = makePostService({
    store: stores.posts,
    publications: {
      schedule: (postId, at, sql) => enqueuePublication(boss, postId, at, { executeSql: sql }),
      cancel: (jobId, sql) => cancelPublication(boss, jobId, { executeSql: sql }),
    },
    requestImageSweep,
    cache: postCache,
    lists: listCache,
    listGeneration,
    changes,
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
  })
  addImageWorkMetrics(metrics, thumbnails.imageWork.stats)
  const services: Services = {
    config,
    database,
    queue,
    version,
    auth,
    posts,
    postCache,
    listCache,
    categories: makeCategoryService({ store: stores.categories, changes }),
    comments: makeCommentService({ store: stores.comments, posts, changes }),
    thumbnails,
    accountCleanup: makeAccountCleanup(stores),
    rateLimits: stores.counters,
    metrics,
  }
  return {
    services,
    /** Closes what the services hold open: the LISTEN connection and the password hashing threads. */
    async close() {
      await listener?.close()
      await hasher.close()
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
