// Reads and validates the environment once, at start-up. A bad value stops start-up with one line
// naming the variable; nothing else in the code reads process.env. Every setting is here, with its
// default and its range; how a value is read and checked is in src/config/.
import { resolve } from 'node:path'
import type { ImageFormat } from './images/sniff.ts'
import { EMAIL, linkTemplate, mailFrom, origins, publicPath, publicUrl, trustProxy } from './config/addresses.ts'
import { imageFormats } from './config/image-formats.ts'
import { jwtSecret } from './config/jwt-secret.ts'
import { writeBudgets } from './config/write-budgets.ts'
import { listeners, type ListenerConfig } from './config/listeners.ts'
import { refuseQuietDefaults } from './config/production.ts'
import { storageConfig, type StorageConfig } from './config/storage.ts'
import { ConfigError, flag, integer, oneOf, text, url, type Env } from './config/variables.ts'

export { ConfigError }

export interface Config extends ListenerConfig, StorageConfig {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** postgres:// URL, or null for the embedded PGlite database. */
  databaseUrl: string | null
  /** Where the embedded database keeps its files; null keeps everything in memory. */
  dataDir: string | null
  databasePoolMax: number
  /** How long a request waits for the database before it is answered 503. */
  databaseTimeoutMs: number
  jwtSecret: string
  jwtIssuer: string
  jwtAudience: string
  accessTokenTtlSeconds: number
  refreshTokenTtlDays: number
  bcryptCost: number
  adminEmail: string | null
  adminPassword: string | null
  bodyLimitBytes: number
  /** A request whose head and body have not all arrived by then is answered 408 (the spec's 30 s). */
  requestTimeoutMs: number
  uploadLimitBytes: number
  imageMaxPixels: number
  /** An image's longest side over its shortest, and what it decodes to (pixels × channels × bytes per sample), at most. */
  imageMaxAspectRatio: number
  imageMaxDecodedBytes: number
  /** Images decoded at once, and uploads waiting for a turn before more are answered 503. */
  imageConcurrency: number
  imageQueueMax: number
  /** Places (running or waiting) one user may hold in the image work pool at once; past that, 429. */
  imageJobsPerUser: number
  /** Image uploads (thumbnails and media items together) allowed per user in one window (seconds). */
  uploadRatePerUser: number
  uploadRateWindowSeconds: number
  /** The bytes one user's media items may take (their renditions'); admins have no quota. 0: only admins upload media. */
  mediaQuotaBytes: number
  /** After refusing a body it has not read whole, how much more of it is read and dropped, and for how long, before closing (lingering close). */
  lingeringCloseBytes: number
  lingeringCloseMs: number
  /** Sockets draining at once; a refusal past that closes its connection at once. */
  lingeringCloseMaxSockets: number
  /** The thumbnail formats accepted, by their bytes; others are 415 IMAGE_UNSUPPORTED_TYPE. */
  imageFormats: ImageFormat[]
  smtpUrl: string | null
  mailFrom: string
  /** Failed sign-ins allowed per account (all addresses together), and per client address, in one window. */
  loginLimitPerAccount: number
  /** Failed sign-ins allowed per account from one client address in one window. */
  loginLimitPerAccountAddress: number
  loginLimitPerAddress: number
  loginLimitWindowSeconds: number
  /** Registrations allowed per client address per hour. */
  registerLimitPerAddress: number
  /** listSessions and revokeSession requests allowed per account, and per client address, in a minute. */
  sessionsLimitPerAccount: number
  sessionsLimitPerAddress: number
  /** Live API tokens one user may hold; one more is 409 API_TOKEN_LIMIT_REACHED. */
  apiTokensMaxPerUser: number
  /** How far ahead a user's (not an admin's) API token may expire, in days; its expiry when none is given. */
  apiTokenMaxDays: number
  /** Requests one API token may make per window (seconds), counted by each instance. */
  apiTokenRateLimit: number
  apiTokenRateWindowSeconds: number
  /**
   * Writes (the operations the spec marks x-write-budget) one account may make per window, counted
   * in the database across instances; admins' own budget, never smaller; the window in seconds.
   */
  writeBudget: number
  writeBudgetAdmin: number
  writeBudgetWindowSeconds: number
  /** How long the token of an email verification link, and of a password reset link, works. */
  emailVerificationTtlSeconds: number
  passwordResetTtlSeconds: number
  /** The links mailed, each with `{token}` where the token goes. */
  emailVerificationUrl: string
  passwordResetUrl: string
  /** Where clients reach the service, without a trailing slash: the feed's links are absolute from it. */
  publicUrl: string
  /**
   * publicUrl's path, '' or e.g. '/blog' (a proxy serving the API under /blog, which strips it): the
   * urls the API writes as absolute-path references (a thumbnail's images) start with it.
   */
  publicPath: string
  /** Whether PUBLIC_URL was given: a fleet that relies on the default links to each instance. */
  publicUrlGiven: boolean
  /** The Atom feed's title, and its author's name. */
  feedTitle: string
  /** When true, unverified users may sign in and read, but not write posts, comments or thumbnails. */
  requireVerifiedEmail: boolean
  /**
   * Which comments wait for an admin's approval: none, those of users without an approved comment
   * yet (one published on somebody else's post) (WordPress's "comment author must have a previously approved comment"), or all.
   */
  commentModeration: 'off' | 'first-time' | 'all'
  /** A comment with more links than this waits for approval, whatever commentModeration says. */
  commentMaxLinks: number
  /** One account's comments at least this many seconds apart (0: no flood limit); admins are exempt. */
  commentMinIntervalSeconds: number
  /** Verification and reset mails asked for per client address, and per recipient (account or email), per hour. */
  accountMailLimitPerAddress: number
  accountMailLimitPerRecipient: number
  /** Verification and reset tokens presented per client address per hour. */
  accountTokenLimitPerAddress: number
  /** GET /posts/{id}'s in-process cache: 0 entries turns it off. */
  postCacheMaxEntries: number
  postCacheMaxBytes: number
  postCacheTtlSeconds: number
  /**
   * The most bytes of items one page of any list carries (its `data` as JSON in UTF-8): a page
   * holds fewer items than `limit` when they are large, never fewer than one.
   */
  listPageMaxBytes: number
  /** Revisions kept per post (0: revisions off); the newest and the last published one are always kept. */
  postRevisionsMax: number
  /** The bytes of titles, bodies and excerpts one post's revisions keep, counted from the newest. */
  postRevisionsMaxBytes: number
  /** Event-loop lag (ms) past which new requests get 503 at once; 0 turns the check off. */
  eventLoopMaxDelayMs: number
  /** Origins whose pages may call the API (CORS); empty: none, ['*']: any. */
  corsOrigins: string[]
  /** Fastify's trustProxy: false, or the proxies' addresses and CIDR ranges. */
  trustProxy: false | string[]
  /** Webhooks may go to http URLs and to loopback, private and link-local addresses (tests, intranets). */
  webhookAllowPrivateNetworks: boolean
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const dataDirRaw = text(env, 'DATA_DIR', './data', 1024)
  const dataDir = dataDirRaw === 'memory:' ? null : resolve(dataDirRaw ?? './data')
  const adminEmail = text(env, 'ADMIN_EMAIL', null, 254)
  if (adminEmail !== null && !EMAIL.test(adminEmail))
    throw new ConfigError('ADMIN_EMAIL', 'must be an email address', adminEmail)
  const adminPassword = text(env, 'ADMIN_PASSWORD', null, 72)
  if ((adminEmail === null) !== (adminPassword === null)) {
    throw new ConfigError(
      adminEmail === null ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD',
      'must be set together with the other ADMIN_ variable',
      undefined,
    )
  }
  if (adminPassword !== null && adminPassword.length < 10)
    throw new ConfigError('ADMIN_PASSWORD', 'must be at least 10 characters', undefined)
  // bcrypt reads 72 bytes, not characters: a longer password could never be checked as given.
  if (adminPassword !== null && Buffer.byteLength(adminPassword) > 72)
    throw new ConfigError('ADMIN_PASSWORD', 'must be at most 72 bytes in UTF-8', undefined)

  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:'])
  refuseQuietDefaults(env, { databaseUrl, smtpUrl })

  const listening = listeners(env)
  const base = publicUrl(env, listening.host, listening.port)
  const databasePoolMax = integer(env, 'DATABASE_POOL_MAX', 10, 1, 200)
  return {
    ...listening,
    ...storageConfig(env, databasePoolMax),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    databaseUrl,
    dataDir,
    databasePoolMax,
    databaseTimeoutMs: integer(env, 'DATABASE_TIMEOUT_MS', 5000, 100, 120_000),
    jwtSecret: jwtSecret(env, databaseUrl, dataDir),
    jwtIssuer: text(env, 'JWT_ISSUER', 'blog-api', 200)!,
    jwtAudience: text(env, 'JWT_AUDIENCE', 'blog-api-clients', 200)!,
    accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 600, 30, 3600),
    refreshTokenTtlDays: integer(env, 'REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    bcryptCost: integer(env, 'BCRYPT_COST', 12, 4, 15),
    adminEmail,
    adminPassword,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 50 * 1024 * 1024),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 300_000),
    uploadLimitBytes: integer(env, 'UPLOAD_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    imageMaxPixels: integer(env, 'IMAGE_MAX_PIXELS', 40_000_000, 1, 500_000_000),
    imageMaxAspectRatio: integer(env, 'IMAGE_MAX_ASPECT_RATIO', 20, 1, 10_000),
    imageMaxDecodedBytes: integer(env, 'IMAGE_MAX_DECODED_BYTES', 160_000_000, 1_000_000, 4_000_000_000),
    imageConcurrency: integer(env, 'IMAGE_CONCURRENCY', 1, 1, 64),
    imageQueueMax: integer(env, 'IMAGE_QUEUE_MAX', 8, 0, 1000),
    imageJobsPerUser: integer(env, 'IMAGE_JOBS_PER_USER', 1, 1, 1000),
    uploadRatePerUser: integer(env, 'UPLOAD_RATE_PER_USER', 30, 1, 100_000),
    uploadRateWindowSeconds: integer(env, 'UPLOAD_RATE_WINDOW_SECONDS', 3600, 1, 86_400),
    mediaQuotaBytes: integer(env, 'MEDIA_QUOTA_BYTES', 100 * 1024 * 1024, 0, 1024 ** 4),
    lingeringCloseBytes: integer(env, 'LINGERING_CLOSE_BYTES', 16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    lingeringCloseMs: integer(env, 'LINGERING_CLOSE_MS', 10_000, 0, 120_000),
    lingeringCloseMaxSockets: integer(env, 'LINGERING_CLOSE_MAX_SOCKETS', 100, 0, 100_000),
    imageFormats: imageFormats(env, 'IMAGE_FORMATS'),
    smtpUrl,
    mailFrom: mailFrom(env),
    loginLimitPerAccount: integer(env, 'LOGIN_LIMIT_PER_ACCOUNT', 100, 1, 100_000),
    loginLimitPerAccountAddress: integer(env, 'LOGIN_LIMIT_PER_ACCOUNT_ADDRESS', 10, 1, 100_000),
    loginLimitPerAddress: integer(env, 'LOGIN_LIMIT_PER_ADDRESS', 50, 1, 1_000_000),
    loginLimitWindowSeconds: integer(env, 'LOGIN_LIMIT_WINDOW_SECONDS', 900, 1, 86_400),
    registerLimitPerAddress: integer(env, 'REGISTER_LIMIT_PER_ADDRESS', 20, 1, 1_000_000),
    sessionsLimitPerAccount: integer(env, 'SESSIONS_LIMIT_PER_ACCOUNT', 60, 1, 100_000),
    sessionsLimitPerAddress: integer(env, 'SESSIONS_LIMIT_PER_ADDRESS', 300, 1, 1_000_000),
    apiTokensMaxPerUser: integer(env, 'API_TOKENS_MAX_PER_USER', 20, 1, 1000),
    apiTokenMaxDays: integer(env, 'API_TOKEN_MAX_DAYS', 365, 1, 3650),
    apiTokenRateLimit: integer(env, 'API_TOKEN_RATE_LIMIT', 600, 1, 1_000_000),
    apiTokenRateWindowSeconds: integer(env, 'API_TOKEN_RATE_WINDOW_SECONDS', 60, 1, 86_400),
    ...writeBudgets(env),
    emailVerificationTtlSeconds: integer(env, 'EMAIL_VERIFICATION_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    passwordResetTtlSeconds: integer(env, 'PASSWORD_RESET_TTL_SECONDS', 1800, 60, 86_400),
    emailVerificationUrl: linkTemplate(env, 'EMAIL_VERIFICATION_URL', base, '/email-verification/confirm'),
    passwordResetUrl: linkTemplate(env, 'PASSWORD_RESET_URL', base, '/password-reset/confirm'),
    publicUrl: base,
    publicPath: publicPath(base),
    publicUrlGiven: text(env, 'PUBLIC_URL', null) !== null,
    feedTitle: text(env, 'FEED_TITLE', 'Blog', 200)!,
    requireVerifiedEmail: flag(env, 'REQUIRE_VERIFIED_EMAIL', false),
    commentModeration: oneOf(env, 'COMMENT_MODERATION', 'first-time', ['off', 'first-time', 'all']),
    commentMaxLinks: integer(env, 'COMMENT_MAX_LINKS', 2, 0, 1000),
    commentMinIntervalSeconds: integer(env, 'COMMENT_MIN_INTERVAL_SECONDS', 15, 0, 3600),
    accountMailLimitPerAddress: integer(env, 'ACCOUNT_MAIL_LIMIT_PER_ADDRESS', 20, 1, 1_000_000),
    accountMailLimitPerRecipient: integer(env, 'ACCOUNT_MAIL_LIMIT_PER_RECIPIENT', 5, 1, 1000),
    accountTokenLimitPerAddress: integer(env, 'ACCOUNT_TOKEN_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
    postCacheMaxEntries: integer(env, 'POST_CACHE_MAX_ENTRIES', 10_000, 0, 1_000_000),
    postCacheMaxBytes: integer(env, 'POST_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024),
    postCacheTtlSeconds: integer(env, 'POST_CACHE_TTL_SECONDS', 300, 1, 86_400),
    listPageMaxBytes: integer(env, 'LIST_PAGE_MAX_BYTES', 1024 * 1024, 16 * 1024, 16 * 1024 * 1024),
    postRevisionsMax: integer(env, 'POST_REVISIONS_MAX', 50, 0, 1000),
    // At least one whole revision of the largest post (100 000 characters, up to 4 bytes each).
    postRevisionsMaxBytes: integer(env, 'POST_REVISIONS_MAX_BYTES', 16 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    eventLoopMaxDelayMs: integer(env, 'EVENT_LOOP_MAX_DELAY_MS', 1000, 0, 60_000),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    trustProxy: trustProxy(env),
    webhookAllowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
  }
}
