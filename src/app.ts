// Builds the whole service as a ready Fastify instance that listens nowhere: the server and the
// tests call this same function, so tests validate, route and fail exactly as production does.
import type { Server } from 'node:http'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import type { PasswordHasher } from './auth/passwords/passwords.ts'
import type { Config } from './config.ts'
import { openDatabase } from './db/database.ts'
import { applyMigrations } from './db/migrations.ts'
import { handlers } from './handlers/index.ts'
import { API_VERSION_HEADER } from './http/headers/api-version.ts'
import { registerForwardedWarnings } from './http/headers/forwarded.ts'
import { requestIds } from './http/headers/request-id.ts'
import { registerCors, registerSecurityHeaders } from './http/headers/browser-policy.ts'
import { handleClientError, trackAnswers } from './http/errors/client-error.ts'
import { registerDocs, DOCS_ROUTES } from './http/docs.ts'
import { registerDrain, type Drain } from './http/drain.ts'
import { registerListenerRules, servedOnItsPort } from './http/internal-listener.ts'
import { handleError, installErrorHandler } from './http/errors/error-handler.ts'
import { registerJsonBodies } from './http/body/json-body.ts'
import { makeLoginLimits, type LoginLimits } from './http/limits/login-limits.ts'
import { makeAccountMailLimits, type AccountMailLimits } from './http/limits/account-mail-limits.ts'
import { makeWriteBudget, type WriteBudget } from './http/limits/write-budget.ts'
import { installNotFoundHandler } from './http/errors/not-found.ts'
import { registerLingeringClose } from './http/errors/lingering-close.ts'
import { registerOverloadGuard } from './http/limits/overload.ts'
import { registerRequestHead } from './http/errors/request-head.ts'
import { requestLog } from './http/request-log.ts'
import { serializeRequest } from './http/logged-url.ts'
import { registerOperations } from './http/routes.ts'
import type { HandlerMap } from './http/operations.ts'
import { registerJwt } from './http/security.ts'
import { registerMultipart } from './http/body/upload.ts'
import { makeValidatorCompiler } from './http/body/validation.ts'
import { createJobQueues, startJobs, type JobsOptions } from './jobs/index.ts'
import { observeRequests } from './metrics/metrics.ts'
import { startQueue } from './queue/queue.ts'
import { makeServices, prepareData, type Services, type WebhookOptions } from './services.ts'
import { loadSpec, type OpenApiDocument } from './spec.ts'

declare module 'fastify' {
  interface FastifyInstance {
    services: Services & {
      loginLimits: LoginLimits
      accountMailLimits: AccountMailLimits
      writeBudget: WriteBudget
      drain: Drain
    }
  }
}

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

/** How often Node looks for requests past their time: the 408 comes at most this late. */
export const checkingInterval = (requestTimeoutMs: number) => Math.min(1000, Math.ceil(requestTimeoutMs / 10))

export function fastifyOptions(config: Config, logDestination?: LogDestination): FastifyHttpOptions<Server> {
  return {
    logger: {
      level: config.logLevel,
      // Secrets never reach a log line, whoever logs what: headers that carry them, and any field
      // named like one at the first levels of a logged object (see test/http/logging.test.ts).
      redact: { paths: REDACTED, censor: '[redacted]' },
      // Tokens in a URL (a query's access_token, a mailed link's token) never reach a log line.
      serializers: { req: serializeRequest },
      ...(logDestination === undefined ? {} : { stream: logDestination }),
    },
    childLoggerFactory: requestLog,
    bodyLimit: config.bodyLimitBytes,
    // request.ip, which the login and registration limits count by, trusts X-Forwarded-For only
    // from the proxies named in TRUST_PROXY.
    trustProxy: config.trustProxy,
    // A caller's request id is kept when it is sane and comes from a caller whose headers are
    // believed (src/http/headers/request-id.ts), so one id follows a request across services.
    // Not through requestIdHeader: Fastify would take any header value as is, before genReqId.
    requestIdHeader: false,
    genReqId: requestIds(config.trustProxy),
    requestTimeout: config.requestTimeoutMs,
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
    http: {
      // A request without Host is refused in the envelope instead (src/http/errors/request-head.ts).
      requireHostHeader: false,
      // Node checks these timeouts only once per interval (30 s by default): a request due at 30 s
      // was answered 408 anywhere up to 60 s. Checked each second (a tenth of a short timeout)
      // instead; the head is bounded by the same time as the whole request (Node's default, 60 s,
      // is read from requestTimeout before Fastify sets it).
      connectionsCheckingInterval: checkingInterval(config.requestTimeoutMs),
      headersTimeout: config.requestTimeoutMs,
    },
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
  /** How webhook hosts are resolved and how long a delivery may take (tests change both). */
  webhooks?: WebhookOptions
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(config, options.logDestination))
  const spec = loadSpec()
  // Each part registers its close as soon as it is open. Fastify runs onClose hooks last-registered
  // first, so the parts close in reverse: the jobs (waiting for those running), then the services,
  // the queue, and the database under them all.
  let services: Services
  try {
    const database = await openDatabase(config)
    app.addHook('onClose', () => database.close())
    // Instances starting together on a new database take turns: migrations, then the queue and its
    // queues, whose creation (tables and constraints, by pg-boss) deadlocks when two instances race it.
    const queue = await database.withMigrationLock(async (adapterFactory) => {
      const { applied } = await applyMigrations(adapterFactory)
      app.log.info({ migrations: applied }, `database ready (${database.kind}); ${applied.length} migration(s) applied`)
      const queue = await startQueue(database, config, app.log)
      app.addHook('onClose', () => queue.stop())
      await createJobQueues(queue, options.jobs)
      return queue
    })
    const built = await makeServices({
      config,
      database,
      queue,
      version: spec.info.version,
      log: app.log,
      signAccessToken: (claims) => app.jwt.sign(claims),
      passwords: options.passwords,
      webhooks: options.webhooks,
    })
    app.addHook('onClose', built.close)
    services = built.services
    if (config.databaseUrl !== null && !config.production)
      // A fleet's instance, started without the checks and defaults of production.
      app.log.warn(
        'NODE_ENV is not production: the production checks are off (DATABASE_URL, SMTP_URL, PUBLIC_URL and the ' +
          'mailed links are not required), the probes and /metrics are served on the public port, and SIGTERM does ' +
          'not drain; set NODE_ENV=production on every instance that serves users',
      )
    if (config.databaseUrl !== null && !config.publicUrlGiven)
      // Each instance of a fleet would then link to itself: feed ids, ETags and links would differ.
      app.log.warn(
        { publicUrl: config.publicUrl },
        "PUBLIC_URL is not set: the Atom feed's links and id use this instance's own address; set it to the one clients use",
      )
    await prepareData(services, app.log)
    const jobs = startJobs(queue, services, app.log, options.jobs)
    // The shutdown timeout counts from the start of the close: the workers stop taking jobs and
    // start their wait then, while requests in flight finish; the queue and the mailer close after.
    app.addHook('preClose', async () => void jobs.stopWorkers())
    app.addHook('onClose', () => jobs.stop())
  } catch (error) {
    await app.close()
    throw error
  }
  await registerHttp(app, spec, services, { ...handlers, ...options.handlers } as HandlerMap)
  await app.ready()
  return app
}

/** The HTTP layer over the services; hooks run in the order they are registered here. */
async function registerHttp(app: FastifyInstance, spec: OpenApiDocument, services: Services, operations: HandlerMap) {
  const { config } = services
  trackAnswers(app.server)
  app.setValidatorCompiler(makeValidatorCompiler())
  registerJsonBodies(app)
  installErrorHandler(app)
  installNotFoundHandler(app, DOCS_ROUTES, servedOnItsPort(config))
  const version = spec.info.version
  // Hooks that never wait are written with `done`: an async hook costs a promise and a turn.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).header(API_VERSION_HEADER, version)
    done()
  })
  registerListenerRules(app, config)
  registerForwardedWarnings(app, config.trustProxy)
  registerRequestHead(app)
  registerSecurityHeaders(app)
  await registerCors(app, config)
  observeRequests(app, services.metrics)
  await registerJwt(app, config)
  const loginLimits = await makeLoginLimits(app, services.rateLimits, config)
  const accountMailLimits = makeAccountMailLimits(services.rateLimits, config)
  const writeBudget = makeWriteBudget(services.rateLimits, config)
  app.decorate('services', { ...services, loginLimits, accountMailLimits, writeBudget, drain: registerDrain(app) })
  // Measuring lag from here on: opening the database and migrating block the loop, but are not load.
  registerOverloadGuard(app, config)
  await registerDocs(app, spec, config.publicPath)
  registerLingeringClose(app, config)
  await registerOperations(app, spec, operations, (uploads) => registerMultipart(uploads, config))
}
