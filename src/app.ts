// Builds the whole service as a ready Fastify instance that listens nowhere: the server and the
// tests call this same function, so tests validate, route and fail exactly as production does.
import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import { makeAccountCleanup } from './auth/account-cleanup.ts'
import { makeAccountStore } from './auth/account-store.ts'
import { ADMIN_GRANT_MESSAGES, makeAuthService, type AuthService } from './auth/auth-service.ts'
import { makeLoginLimits, type LoginLimits } from './auth/login-limits.ts'
import { makePasswordHasher, type PasswordHasher } from './auth/passwords.ts'
import type { Config } from './config.ts'
import { makeRateLimitCounters } from './auth/rate-limit-store.ts'
import { makeCategoryService, type CategoryService } from './content/categories.ts'
import { makeCategoryStore } from './content/category-store.ts'
import { makeCommentService, type CommentService } from './content/comments.ts'
import { makeCommentStore } from './content/comment-store.ts'
import { makeImageStore } from './content/image-store.ts'
import { makePostCache, type PostCache } from './content/post-cache.ts'
import { applyMessage, makePostChanges } from './content/post-changes.ts'
import { makePostStore } from './content/post-store.ts'
import { loadPost, makePostService, type PostService } from './content/posts.ts'
import { makeThumbnailService, type ThumbnailService } from './content/thumbnails.ts'
import { makeUploadRate } from './content/upload-rate.ts'
import { openDatabase, type Database } from './db/database.ts'
import { applyMigrations } from './db/migrations.ts'
import { listenForInvalidations, notifyWith } from './db/post-invalidations.ts'
import { handlers } from './handlers/index.ts'
import { API_VERSION_HEADER } from './http/api-version.ts'
import { registerCors, registerSecurityHeaders } from './http/browser-policy.ts'
import { handleClientError, trackAnswers } from './http/client-error.ts'
import { registerDocs, DOCS_ROUTES } from './http/docs.ts'
import { handleError, installErrorHandler } from './http/error-handler.ts'
import { registerJsonBodies } from './http/json-body.ts'
import { installNotFoundHandler } from './http/not-found.ts'
import { registerLingeringClose } from './http/lingering-close.ts'
import { registerOverloadGuard } from './http/overload.ts'
import { registerRequestHead } from './http/request-head.ts'
import { registerOperations } from './http/routes.ts'
import type { HandlerMap } from './http/operations.ts'
import { registerJwt } from './http/security.ts'
import { registerMultipart } from './http/upload.ts'
import { makeValidatorCompiler } from './http/validation.ts'
import { startJobs, type Jobs, type JobsOptions } from './jobs/index.ts'
import { cancelPublication, enqueuePublication } from './jobs/publish-post.ts'
import { enqueueImageSweep } from './jobs/sweep-images.ts'
import { enqueueWelcomeEmail } from './jobs/welcome-email.ts'
import { addImageWorkMetrics } from './metrics/image-work-metrics.ts'
import { addPostCacheMetrics } from './metrics/post-cache-metrics.ts'
import { makeMetrics, observeRequests, type Metrics } from './metrics/metrics.ts'
import { startQueue, type Queue } from './queue/queue.ts'
import { loadSpec } from './spec.ts'

export interface Services {
  config: Config
  database: Database
  queue: Queue
  version: string
  auth: AuthService
  loginLimits: LoginLimits
  posts: PostService
  /** GET /posts/{id}'s cache; its stats are for operators. */
  postCache: PostCache
  categories: CategoryService
  comments: CommentService
  thumbnails: ThumbnailService
  /** Prometheus metrics; `metrics.addCollector` takes collectors made elsewhere. */
  metrics: Metrics
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

/** A caller's request id we keep: short enough for meta.requestId (100), inert in logs and headers. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/

const SECRET_FIELDS = ['password', 'passwordHash', 'accessToken', 'refreshToken', 'token', 'authorization', 'cookie']
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'body',
  'req.body',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
]

/** Where log lines go: stdout unless given (tests read them from a stream of their own). */
export interface LogDestination {
  write(line: string): void
}

export function fastifyOptions(config: Config, logDestination?: LogDestination): FastifyHttpOptions<Server> {
  return {
    logger: {
      level: config.logLevel,
      // Secrets never reach a log line, whoever logs what: headers that carry them, and any field
      // named like one at the first levels of a logged object (see test/http/logging.test.ts).
      redact: { paths: REDACTED, censor: '[redacted]' },
      ...(logDestination === undefined ? {} : { stream: logDestination }),
    },
    bodyLimit: config.bodyLimitBytes,
    // request.ip, which the login and registration limits count by, trusts X-Forwarded-For only
    // from the proxies named in TRUST_PROXY.
    trustProxy: config.trustProxy,
    // A caller's request id is kept when it is sane, so one id follows a request across services.
    // Not through requestIdHeader: Fastify would take any header value as is, before genReqId.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    requestTimeout: 30_000,
    // A path parameter longer than this is answered 414 by the router before the spec's schema
    // sees it: longer than any request line Node's HTTP parser takes (16 KiB by default), every
    // overlong id gets the schema's documented 400 instead.
    routerOptions: { maxParamLength: 16 * 1024 },
    // Opening PGlite and applying migrations can take several seconds on a cold machine.
    pluginTimeout: 120_000,
    // Draining on SIGTERM: a request that reaches an open keep-alive connection is served (with
    // Connection: close), not refused; new connections are refused, as the listener is closed.
    return503OnClosing: false,
    // Errors raised before routing (a malformed URL) go through the same mapping as the rest.
    frameworkErrors: handleError,
    // And those raised by Node's HTTP parser, before Fastify sees a request (431, 400, 408).
    clientErrorHandler: handleClientError,
    // A request without Host is refused in the envelope instead (src/http/request-head.ts).
    http: { requireHostHeader: false },
  }
}

export interface AppOptions {
  /** Replaces handlers by operationId; tests use it to reach failures no real input can cause. */
  handlers?: Partial<HandlerMap>
  /** Polling and retry pace of the background jobs (tests shorten them). */
  jobs?: JobsOptions
  /** Where the log lines go instead of stdout (tests read them). */
  logDestination?: LogDestination
  /** Wraps the password hasher; tests use it to pause a request between its password check and its write. */
  passwords?: (hasher: PasswordHasher) => PasswordHasher
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(config, options.logDestination))
  trackAnswers(app.server)
  const spec = loadSpec()
  app.setValidatorCompiler(makeValidatorCompiler())
  registerJsonBodies(app)
  installErrorHandler(app)
  installNotFoundHandler(app, DOCS_ROUTES)
  app.addHook('onRequest', async (request, reply) => {
    reply.headers({ 'x-request-id': request.id, [API_VERSION_HEADER]: spec.info.version })
  })
  registerRequestHead(app)
  await registerSecurityHeaders(app)
  await registerCors(app, config)

  const database = await openDatabase(config)
  let queue: Queue | undefined
  let jobs: Jobs | undefined
  // One hook closes everything in order: the queue (waiting for running jobs), the jobs' mailer,
  // then the database under them.
  app.addHook('onClose', async () => {
    await queue?.stop()
    await jobs?.stop()
    await database.close()
  })
  try {
    // Instances starting together on a new database take turns: migrations, then the job queues,
    // whose creation (tables and constraints, by pg-boss) deadlocks when two instances race it.
    await database.withMigrationLock(async (adapterFactory) => {
      const { applied } = await applyMigrations(adapterFactory)
      app.log.info({ migrations: applied }, `database ready (${database.kind}); ${applied.length} migration(s) applied`)
      queue = await startQueue(database, config, app.log)
      jobs = await startJobs(
        // The sweep reads the database only: a worker may fetch a job before app.services exists.
        {
          queue,
          config,
          publishIfDue: (id) => app.services.posts.publishIfDue(id),
          sweepImages: makeImageStore(database.prisma).sweepOrphans,
          cleanUpAccounts: makeAccountCleanup({ accounts: makeAccountStore(database.prisma), counters: makeRateLimitCounters(database.prisma) }),
        },
        app.log,
        options.jobs,
      )
    })
  } catch (error) {
    await app.close()
    throw error
  }
  const metrics = makeMetrics({ database, queue: queue! })
  observeRequests(app, metrics)
  await registerJwt(app, config)
  const postStore = makePostStore(database.prisma, { databaseTimeoutMs: config.databaseTimeoutMs })
  const postCache = makePostCache(loadPost(postStore), { maxEntries: config.postCacheMaxEntries, maxBytes: config.postCacheMaxBytes, ttlMs: config.postCacheTtlSeconds * 1000 })
  addPostCacheMetrics(metrics, postCache.stats)
  const changes = makePostChanges(postCache, database.kind === 'postgres' ? notifyWith(database.prisma) : null, app.log)
  if (config.databaseUrl !== null) {
    const listener = listenForInvalidations(config.databaseUrl, (message) => applyMessage(postCache, message), app.log)
    app.addHook('onClose', () => listener.close())
  }
  const hasher = makePasswordHasher(config.bcryptCost)
  app.addHook('onClose', () => hasher.close())
  const passwords = options.passwords?.(hasher) ?? hasher
  const auth = makeAuthService({
    store: makeAccountStore(database.prisma),
    passwords,
    config,
    signAccessToken: (claims) => app.jwt.sign(claims),
    onRegistered: (user, sql) =>
      enqueueWelcomeEmail(queue!.boss, { userId: user.id, email: user.email, name: user.name }, { executeSql: sql }),
    onRenamed: (userId) => changes.changed({ authorId: userId }),
  })
  if (config.adminEmail !== null) {
    const outcome = await auth.bootstrapAdmin(config.adminEmail, config.adminPassword!)
    app.log[outcome === 'taken-over' ? 'warn' : 'info']({ adminEmail: config.adminEmail, outcome }, ADMIN_GRANT_MESSAGES[outcome])
  }
  const loginLimits = await makeLoginLimits(app, database.prisma, config)
  const requestImageSweep = () => enqueueImageSweep(queue!.boss, app.log)
  const posts = makePostService({
    store: postStore,
    publications: {
      schedule: (postId, at, sql) => enqueuePublication(queue!.boss, postId, at, { executeSql: sql }),
      cancel: (jobId, sql) => cancelPublication(queue!.boss, jobId, { executeSql: sql }),
    },
    requestImageSweep,
    cache: postCache,
    changes,
  })
  const categories = makeCategoryService({ store: makeCategoryStore(database.prisma), changes })
  await categories.ensureDefault()
  const comments = makeCommentService({ store: makeCommentStore(database.prisma), posts, changes })
  const thumbnails = makeThumbnailService({
    posts,
    store: postStore,
    images: makeImageStore(database.prisma),
    uploads: makeUploadRate(makeRateLimitCounters(database.prisma), config),
    config,
    requestImageSweep,
    changes,
  })
  addImageWorkMetrics(metrics, thumbnails.imageWork.stats)
  app.decorate('services', { config, database, queue: queue!, version: spec.info.version, auth, loginLimits, posts, postCache, categories, comments, thumbnails, metrics })
  // Measuring lag from here on: opening the database and migrating block the loop, but are not load.
  await registerOverloadGuard(app, config)
  await registerDocs(app, spec)
  await registerMultipart(app, config)
  registerLingeringClose(app, config)
  await registerOperations(app, spec, { ...handlers, ...options.handlers } as HandlerMap)
  await app.ready()
  return app
}
