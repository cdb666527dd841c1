// Reads and validates the environment once, at start-up. A bad value stops start-up with one line
// naming the variable; nothing else in the code reads process.env.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { IMAGE_FORMATS, type ImageFormat } from './images/sniff.ts'

export interface Config {
  host: string
  port: number
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
  /** Thumbnail uploads allowed per user in one window (seconds). */
  uploadRatePerUser: number
  uploadRateWindowSeconds: number
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
  /** How long the token of an email verification link, and of a password reset link, works. */
  emailVerificationTtlSeconds: number
  passwordResetTtlSeconds: number
  /** The links mailed, each with `{token}` where the token goes. */
  emailVerificationUrl: string
  passwordResetUrl: string
  /** Where clients reach the service, without a trailing slash: the feed's links are absolute from it. */
  publicUrl: string
  /** Whether PUBLIC_URL was given: a fleet that relies on the default links to each instance. */
  publicUrlGiven: boolean
  /** The Atom feed's title, and its author's name. */
  feedTitle: string
  /** When true, unverified users may sign in and read, but not write posts, comments or thumbnails. */
  requireVerifiedEmail: boolean
  /** Verification and reset mails asked for per client address, and per recipient (account or email), per hour. */
  accountMailLimitPerAddress: number
  accountMailLimitPerRecipient: number
  /** Verification and reset tokens presented per client address per hour. */
  accountTokenLimitPerAddress: number
  shutdownTimeoutMs: number
  /** GET /posts/{id}'s in-process cache: 0 entries turns it off. */
  postCacheMaxEntries: number
  postCacheMaxBytes: number
  postCacheTtlSeconds: number
  /**
   * The most bytes of items one page of any list carries (its `data` as JSON in UTF-8): a page
   * holds fewer items than `limit` when they are large, never fewer than one.
   */
  listPageMaxBytes: number
  /** Event-loop lag (ms) past which new requests get 503 at once; 0 turns the check off. */
  eventLoopMaxDelayMs: number
  /** Origins whose pages may call the API (CORS); empty: none, ['*']: any. */
  corsOrigins: string[]
  /** Fastify's trustProxy: false, or the proxies' addresses and CIDR ranges. */
  trustProxy: false | string[]
  /** Webhooks may go to http URLs and to loopback, private and link-local addresses (tests, intranets). */
  webhookAllowPrivateNetworks: boolean
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string, value: string | undefined) {
    const shown =
      value === undefined ? '' : ` (got ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`
    super(`Invalid configuration: ${variable} ${problem}${shown}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function text(env: Env, name: string, fallback: string | null, maxLength = 2048): string | null {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw.length > maxLength) throw new ConfigError(name, `must be at most ${maxLength} characters`, raw)
  return raw
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}`, raw)
  }
  return value
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, raw)
  return raw as T
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = text(env, name, null)
  if (raw === null) return null
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `must be a URL starting with ${protocols.join(' or ')}`, undefined)
  }
  // The URL may carry a password, so it is never echoed back.
  if (!protocols.includes(parsed.protocol))
    throw new ConfigError(name, `must start with ${protocols.join(' or ')}`, undefined)
  return raw
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function mailFrom(env: Env): string {
  const value = text(env, 'MAIL_FROM', 'Blog <no-reply@blog.localhost>', 254)!
  const address = /<([^>]+)>$/.exec(value)?.[1] ?? value
  if (!EMAIL.test(address))
    throw new ConfigError('MAIL_FROM', 'must be an email address, optionally as "Name <address>"', value)
  return value
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(name, 'must be true or false', raw)
  return raw === 'true'
}

/**
 * A link to mail: an http(s) URL with `{token}` where the token goes. Unset, it points at this
 * service's own operation on the address it listens at; operators set it to their site's page,
 * which posts the token to the API.
 */
function linkTemplate(env: Env, name: string, host: string, port: number, path: string): string {
  const raw = text(env, name, null)
  if (raw === null) return `${ownUrl(host, port)}${path}?token={token}`
  let parsed: URL | undefined
  try {
    parsed = new URL(raw.replaceAll('{token}', 'token'))
  } catch {
    // reported below
  }
  if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || !raw.includes('{token}'))
    throw new ConfigError(name, 'must be an http(s) URL containing {token}', raw)
  return raw
}

/** The address this service listens at, as a URL (any address: the loopback one). */
function ownUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  return `http://${shown}:${port}`
}

/**
 * The URL clients reach the service at, as a base for absolute links: http(s), perhaps with a path
 * (behind a proxy at /api), no query or fragment; kept without a trailing slash. Unset, it is the
 * address the service listens at, as for the links mailed.
 */
function publicUrl(env: Env, host: string, port: number): string {
  const raw = text(env, 'PUBLIC_URL', null)
  if (raw === null) return ownUrl(host, port)
  let parsed: URL | undefined
  try {
    parsed = new URL(raw)
  } catch {
    // reported below
  }
  const extra = raw.includes('?') || raw.includes('#') || parsed?.username !== '' || parsed?.password !== ''
  if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || extra)
    throw new ConfigError('PUBLIC_URL', 'must be an http(s) URL without query, fragment or credentials', raw)
  let href = parsed.href
  while (href.endsWith('/')) href = href.slice(0, -1)
  return href
}

/** A comma-separated list of origins (`https://blog.example.com`), or `*` for any. */
function origins(env: Env, name: string): string[] {
  const raw = text(env, name, '', 4096)!
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of list) {
    if (entry === '*') continue
    let parsed: URL | undefined
    try {
      parsed = new URL(entry)
    } catch {
      // reported below
    }
    // An origin is scheme, host and port, exactly as a browser sends it: no path, no trailing slash.
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== entry) {
      throw new ConfigError(
        name,
        'must be a comma-separated list of origins such as https://blog.example.com, or *',
        entry,
      )
    }
  }
  return list
}

const PROXY_ADDRESS = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/

/**
 * Which proxies may name the client in X-Forwarded-For. Unset: none, so the address a limit counts
 * is the connection's own, whatever headers a client sends.
 */
function trustProxy(env: Env): false | string[] {
  const raw = text(env, 'TRUST_PROXY', '', 4096)!.trim()
  if (raw === '' || raw === 'false') return false
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const bad = list.find((entry) => !PROXY_ADDRESS.test(entry) || isIP(entry.split('/')[0]!) === 0)
  if (bad !== undefined)
    throw new ConfigError('TRUST_PROXY', 'must be a comma-separated list of proxy addresses or CIDR ranges', bad)
  return list
}

/** A comma-separated subset of the image formats we can decode; unset: all of them. */
function imageFormats(env: Env, name: string): ImageFormat[] {
  const raw = text(env, name, null, 200)
  if (raw === null) return [...IMAGE_FORMATS]
  const problem = `must be a comma-separated list of ${IMAGE_FORMATS.join(', ')}`
  const list = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
  if (list.length === 0) throw new ConfigError(name, problem, raw)
  for (const entry of list) {
    if (!(IMAGE_FORMATS as readonly string[]).includes(entry)) throw new ConfigError(name, problem, entry)
  }
  // In our order, once each: messages then list them the same way whatever the variable's order.
  return IMAGE_FORMATS.filter((format) => list.includes(format))
}

/**
 * The secret that signs access tokens. Several instances must share one, so on Postgres it is
 * required; on the embedded database a random one is made once and kept beside the data, so a
 * newcomer's `npm start` works and tokens survive a restart.
 */
function jwtSecret(env: Env, databaseUrl: string | null, dataDir: string | null): string {
  const given = text(env, 'JWT_SECRET', null, 512)
  if (given !== null) {
    if (given.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters', undefined)
    return given
  }
  if (databaseUrl !== null) throw new ConfigError('JWT_SECRET', 'is required when DATABASE_URL is set', undefined)
  if (dataDir === null) return randomBytes(32).toString('base64url')
  const file = join(dataDir, 'jwt-secret')
  let kept: string
  try {
    kept = readFileSync(file, 'utf8').trim()
  } catch (error) {
    // Only a missing file means "first start": replacing one we could not read would sign everyone out.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(
        'JWT_SECRET',
        `is unset and ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`,
        undefined,
      )
    }
    const secret = randomBytes(32).toString('base64url')
    mkdirSync(dataDir, { recursive: true })
    // Written beside it and renamed: a start killed mid-write leaves no empty secret behind.
    const written = `${file}.${process.pid}.new`
    writeFileSync(written, secret, { mode: 0o600 })
    renameSync(written, file)
    return secret
  }
  // An edited or truncated file must not sign tokens with a guessable key.
  if (kept.length < 32)
    throw new ConfigError(
      'JWT_SECRET',
      `is unset and ${file} holds fewer than 32 characters: delete it to have a new secret made`,
      undefined,
    )
  return kept
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

  const host = text(env, 'HOST', '127.0.0.1', 255)!
  const port = integer(env, 'PORT', 3000, 0, 65535)
  return {
    host,
    port,
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    databaseUrl,
    dataDir,
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 200),
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
    lingeringCloseBytes: integer(env, 'LINGERING_CLOSE_BYTES', 16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    lingeringCloseMs: integer(env, 'LINGERING_CLOSE_MS', 10_000, 0, 120_000),
    lingeringCloseMaxSockets: integer(env, 'LINGERING_CLOSE_MAX_SOCKETS', 100, 0, 100_000),
    imageFormats: imageFormats(env, 'IMAGE_FORMATS'),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailFrom(env),
    loginLimitPerAccount: integer(env, 'LOGIN_LIMIT_PER_ACCOUNT', 100, 1, 100_000),
    loginLimitPerAccountAddress: integer(env, 'LOGIN_LIMIT_PER_ACCOUNT_ADDRESS', 10, 1, 100_000),
    loginLimitPerAddress: integer(env, 'LOGIN_LIMIT_PER_ADDRESS', 50, 1, 1_000_000),
    loginLimitWindowSeconds: integer(env, 'LOGIN_LIMIT_WINDOW_SECONDS', 900, 1, 86_400),
    registerLimitPerAddress: integer(env, 'REGISTER_LIMIT_PER_ADDRESS', 20, 1, 1_000_000),
    sessionsLimitPerAccount: integer(env, 'SESSIONS_LIMIT_PER_ACCOUNT', 60, 1, 100_000),
    sessionsLimitPerAddress: integer(env, 'SESSIONS_LIMIT_PER_ADDRESS', 300, 1, 1_000_000),
    emailVerificationTtlSeconds: integer(env, 'EMAIL_VERIFICATION_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    passwordResetTtlSeconds: integer(env, 'PASSWORD_RESET_TTL_SECONDS', 1800, 60, 86_400),
    emailVerificationUrl: linkTemplate(env, 'EMAIL_VERIFICATION_URL', host, port, '/email-verification/confirm'),
    passwordResetUrl: linkTemplate(env, 'PASSWORD_RESET_URL', host, port, '/password-reset/confirm'),
    publicUrl: publicUrl(env, host, port),
    publicUrlGiven: text(env, 'PUBLIC_URL', null) !== null,
    feedTitle: text(env, 'FEED_TITLE', 'Blog', 200)!,
    requireVerifiedEmail: flag(env, 'REQUIRE_VERIFIED_EMAIL', false),
    accountMailLimitPerAddress: integer(env, 'ACCOUNT_MAIL_LIMIT_PER_ADDRESS', 20, 1, 1_000_000),
    accountMailLimitPerRecipient: integer(env, 'ACCOUNT_MAIL_LIMIT_PER_RECIPIENT', 5, 1, 1000),
    accountTokenLimitPerAddress: integer(env, 'ACCOUNT_TOKEN_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 300_000),
    postCacheMaxEntries: integer(env, 'POST_CACHE_MAX_ENTRIES', 10_000, 0, 1_000_000),
    postCacheMaxBytes: integer(env, 'POST_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024),
    postCacheTtlSeconds: integer(env, 'POST_CACHE_TTL_SECONDS', 300, 1, 86_400),
    listPageMaxBytes: integer(env, 'LIST_PAGE_MAX_BYTES', 1024 * 1024, 16 * 1024, 16 * 1024 * 1024),
    eventLoopMaxDelayMs: integer(env, 'EVENT_LOOP_MAX_DELAY_MS', 1000, 0, 60_000),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    trustProxy: trustProxy(env),
    webhookAllowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
  }
}
