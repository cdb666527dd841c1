import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError, loadConfig } from '../src/config.ts'

t.test('defaults run the embedded database on port 3000 with a secret kept beside the data', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'blog-config-'))
  const config = loadConfig({ DATA_DIR: dataDir })
  t.equal(config.port, 3000)
  t.equal(config.databaseUrl, null)
  t.equal(config.dataDir, dataDir)
  t.equal(config.accessTokenTtlSeconds, 600)
  t.equal(config.commentModeration, 'first-time', "a new user's first comment waits for approval")
  t.equal(config.commentMaxLinks, 2)
  t.equal(config.commentMinIntervalSeconds, 15)
  t.ok(config.jwtSecret.length >= 32)
  t.equal(readFileSync(join(dataDir, 'jwt-secret'), 'utf8'), config.jwtSecret, 'the generated secret is kept')
  t.equal(loadConfig({ DATA_DIR: dataDir }).jwtSecret, config.jwtSecret, 'and reused on the next start')
})

t.test('a kept secret shorter than 32 characters stops start-up instead of signing with it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'blog-config-'))
  writeFileSync(join(dataDir, 'jwt-secret'), '\n')
  t.throws(() => loadConfig({ DATA_DIR: dataDir }), {
    name: 'ConfigError',
    message: /JWT_SECRET is unset and .*jwt-secret holds fewer than 32 characters/,
  })
})

t.test('a kept secret that cannot be read stops start-up instead of being replaced', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'blog-config-'))
  mkdirSync(join(dataDir, 'jwt-secret'))
  t.throws(() => loadConfig({ DATA_DIR: dataDir }), {
    name: 'ConfigError',
    message: /JWT_SECRET is unset and .*jwt-secret cannot be read \(EISDIR\)/,
  })
})

t.test('each bad value names its variable', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /^Invalid configuration: PORT must be an integer from 0 to 65535 \(got "abc"\)$/],
    [{ PORT: '70000' }, /PORT must be an integer/],
    [{ BCRYPT_COST: '3' }, /BCRYPT_COST must be an integer from 4 to 15/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [
      { DATABASE_URL: 'mysql://x@y/z', JWT_SECRET: 'x'.repeat(32) },
      /DATABASE_URL must start with postgres: or postgresql:/,
    ],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL must be a URL/],
    [{ DATABASE_URL: 'postgres://root@127.0.0.1/test' }, /JWT_SECRET is required when DATABASE_URL is set/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must be at least 32 characters/],
    [{ ADMIN_EMAIL: 'admin@example.com' }, /ADMIN_PASSWORD must be set together/],
    [{ ADMIN_EMAIL: 'nope', ADMIN_PASSWORD: 'long-enough-password' }, /ADMIN_EMAIL must be an email address/],
    [{ ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'é'.repeat(40) }, /ADMIN_PASSWORD must be at most 72 bytes/],
    [{ POST_CACHE_MAX_ENTRIES: '-1' }, /POST_CACHE_MAX_ENTRIES must be an integer from 0 to 1000000/],
    [{ POST_CACHE_TTL_SECONDS: '0' }, /POST_CACHE_TTL_SECONDS must be an integer from 1/],
    [{ LIST_PAGE_MAX_BYTES: '16383' }, /LIST_PAGE_MAX_BYTES must be an integer from 16384 to 16777216/],
    [{ POST_REVISIONS_MAX: '-1' }, /POST_REVISIONS_MAX must be an integer from 0 to 1000/],
    [{ POST_REVISIONS_MAX: '1001' }, /POST_REVISIONS_MAX must be an integer from 0 to 1000/],
    [{ POST_REVISIONS_MAX_BYTES: '1048575' }, /POST_REVISIONS_MAX_BYTES must be an integer from 1048576 to 1073741824/],
    [
      { POST_REVISIONS_MAX_BYTES: '1073741825' },
      /POST_REVISIONS_MAX_BYTES must be an integer from 1048576 to 1073741824/,
    ],
    [{ EVENT_LOOP_MAX_DELAY_MS: '-1' }, /EVENT_LOOP_MAX_DELAY_MS must be an integer from 0 to 60000/],
    [{ CORS_ORIGINS: 'https://blog.example.com/' }, /CORS_ORIGINS must be a comma-separated list of origins/],
    [
      { CORS_ORIGINS: 'https://a.example.com, blog.example.com' },
      /CORS_ORIGINS must be .* \(got "blog.example.com"\)$/,
    ],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /CORS_ORIGINS must be/],
    [{ TRUST_PROXY: 'everyone' }, /TRUST_PROXY must be a comma-separated list of proxy addresses/],
    [{ TRUST_PROXY: '10.0.0.0/8, 300.1.1.1' }, /TRUST_PROXY must be .* \(got "300.1.1.1"\)$/],
    [{ PORT: '8080', INTERNAL_PORT: '8080' }, /^Invalid configuration: INTERNAL_PORT must differ from PORT/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY must be .* \(got "10.0.0.0\/33"\)$/],
    [{ TRUST_PROXY: '0.0.0.0/0' }, /TRUST_PROXY must be .* \(got "0.0.0.0\/0"\)$/],
    [{ TRUST_PROXY: 'fd00::/129' }, /TRUST_PROXY must be .* \(got "fd00::\/129"\)$/],
    [
      { IMAGE_FORMATS: 'png,tiff' },
      /^Invalid configuration: IMAGE_FORMATS must be a comma-separated list of jpeg, png, webp, gif, avif \(got "tiff"\)$/,
    ],
    [{ IMAGE_FORMATS: ' , ' }, /IMAGE_FORMATS must be a comma-separated list/],
    [{ LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '0' }, /LOGIN_LIMIT_PER_ACCOUNT_ADDRESS must be an integer from 1 to 100000/],
    [{ COMMENT_MODERATION: 'some' }, /COMMENT_MODERATION must be one of off, first-time, all \(got "some"\)/],
    [{ COMMENT_MAX_LINKS: '-1' }, /COMMENT_MAX_LINKS must be an integer from 0 to 1000/],
    [{ COMMENT_MIN_INTERVAL_SECONDS: '3601' }, /COMMENT_MIN_INTERVAL_SECONDS must be an integer from 0 to 3600/],
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), message, JSON.stringify(env))
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), ConfigError)
  }
})

t.test('sign-in limits: tight per account and address, loose per account', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:' })
  t.equal(defaults.loginLimitPerAccountAddress, 10)
  t.equal(defaults.loginLimitPerAccount, 100)
  t.equal(loadConfig({ DATA_DIR: 'memory:', LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '5' }).loginLimitPerAccountAddress, 5)
})

t.test('overload limit and CORS origins', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:' })
  t.equal(defaults.eventLoopMaxDelayMs, 1000)
  t.same(defaults.corsOrigins, [], 'no CORS unless asked for')
  t.equal(
    loadConfig({ DATA_DIR: 'memory:', EVENT_LOOP_MAX_DELAY_MS: '0' }).eventLoopMaxDelayMs,
    0,
    '0 turns the check off',
  )
  const listed = loadConfig({ DATA_DIR: 'memory:', CORS_ORIGINS: 'https://blog.example.com, http://localhost:5173' })
  t.same(listed.corsOrigins, ['https://blog.example.com', 'http://localhost:5173'])
  t.same(loadConfig({ DATA_DIR: 'memory:', CORS_ORIGINS: '*' }).corsOrigins, ['*'])
})

t.test('accepted image formats', async (t) => {
  t.same(
    loadConfig({ DATA_DIR: 'memory:' }).imageFormats,
    ['jpeg', 'png', 'webp', 'gif', 'avif'],
    'all five by default',
  )
  t.same(
    loadConfig({ DATA_DIR: 'memory:', IMAGE_FORMATS: 'PNG, webp,png' }).imageFormats,
    ['png', 'webp'],
    'a subset, any case, once each',
  )
})

t.test('a URL with a password is never echoed back', async (t) => {
  const error = t.throws(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })) as Error
  t.notMatch(error.message, /hunter2/)
})

t.test('the server refuses to start on a bad value, with one line on stderr', async (t) => {
  const child = spawn(process.execPath, ['--import=tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: 'abc', DATABASE_URL: '', DATA_DIR: 'memory:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 1)
  t.equal(stderr, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc")\n')
})

t.test('lingering close after a refused body: bytes and time, 0 closes at once', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:' })
  t.equal(defaults.lingeringCloseBytes, 16 * 1024 * 1024)
  t.equal(defaults.lingeringCloseMs, 10_000)
  t.equal(loadConfig({ DATA_DIR: 'memory:', LINGERING_CLOSE_MS: '0' }).lingeringCloseMs, 0)
  t.throws(
    () => loadConfig({ DATA_DIR: 'memory:', LINGERING_CLOSE_BYTES: '-1' }),
    /LINGERING_CLOSE_BYTES must be an integer from 0 to 1073741824/,
  )
  t.throws(
    () => loadConfig({ DATA_DIR: 'memory:', LINGERING_CLOSE_MS: '120001' }),
    /LINGERING_CLOSE_MS must be an integer from 0 to 120000/,
  )
  t.equal(defaults.lingeringCloseMaxSockets, 100, 'at most 100 sockets drain at once')
  t.equal(loadConfig({ DATA_DIR: 'memory:', LINGERING_CLOSE_MAX_SOCKETS: '0' }).lingeringCloseMaxSockets, 0)
  t.throws(
    () => loadConfig({ DATA_DIR: 'memory:', LINGERING_CLOSE_MAX_SOCKETS: '100001' }),
    /LINGERING_CLOSE_MAX_SOCKETS must be an integer from 0 to 100000/,
  )
})

t.test('image work bounds and the upload allowance', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:' })
  t.match(defaults, {
    imageMaxAspectRatio: 20,
    imageMaxDecodedBytes: 160_000_000,
    imageConcurrency: 1,
    imageQueueMax: 8,
    imageJobsPerUser: 1,
    uploadRatePerUser: 30,
    uploadRateWindowSeconds: 3600,
    mediaQuotaBytes: 100 * 1024 * 1024,
  })
  t.match(
    loadConfig({ DATA_DIR: 'memory:' }),
    { postRevisionsMax: 50, postRevisionsMaxBytes: 16 * 1024 * 1024 },
    'revisions: 50 per post, 16 MiB',
  )
  t.equal(loadConfig({ DATA_DIR: 'memory:', POST_REVISIONS_MAX: '0' }).postRevisionsMax, 0, 'revisions off')
  t.equal(
    loadConfig({ DATA_DIR: 'memory:', MEDIA_QUOTA_BYTES: '0' }).mediaQuotaBytes,
    0,
    'no quota: only admins upload media',
  )
  t.equal(
    loadConfig({ DATA_DIR: 'memory:', IMAGE_QUEUE_MAX: '0' }).imageQueueMax,
    0,
    'no queue: busy means 503 at once',
  )
  const cases: [Record<string, string>, RegExp][] = [
    [{ IMAGE_MAX_ASPECT_RATIO: '0' }, /IMAGE_MAX_ASPECT_RATIO must be an integer from 1 to 10000/],
    [{ IMAGE_MAX_DECODED_BYTES: '999999' }, /IMAGE_MAX_DECODED_BYTES must be an integer from 1000000 to 4000000000/],
    [{ IMAGE_CONCURRENCY: '0' }, /IMAGE_CONCURRENCY must be an integer from 1 to 64/],
    [{ IMAGE_QUEUE_MAX: '-1' }, /IMAGE_QUEUE_MAX must be an integer from 0 to 1000/],
    [{ IMAGE_JOBS_PER_USER: '0' }, /IMAGE_JOBS_PER_USER must be an integer from 1 to 1000/],
    [{ UPLOAD_RATE_PER_USER: '0' }, /UPLOAD_RATE_PER_USER must be an integer from 1 to 100000/],
    [{ UPLOAD_RATE_WINDOW_SECONDS: '86401' }, /UPLOAD_RATE_WINDOW_SECONDS must be an integer from 1 to 86400/],
    [{ MEDIA_QUOTA_BYTES: '-1' }, /MEDIA_QUOTA_BYTES must be an integer from 0 to 1099511627776/],
    [{ MEDIA_QUOTA_BYTES: '1099511627777' }, /MEDIA_QUOTA_BYTES must be an integer from 0 to 1099511627776/],
  ]
  for (const [env, message] of cases)
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), message, JSON.stringify(env))
})

t.test('email verification and password reset: links, lifetimes, the requirement, the limits', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:', PORT: '8080' })
  t.equal(defaults.emailVerificationUrl, 'http://127.0.0.1:8080/email-verification/confirm?token={token}')
  t.equal(defaults.passwordResetUrl, 'http://127.0.0.1:8080/password-reset/confirm?token={token}')
  t.match(defaults, {
    emailVerificationTtlSeconds: 86_400,
    passwordResetTtlSeconds: 1800,
    requireVerifiedEmail: false,
    accountMailLimitPerAddress: 20,
    accountMailLimitPerRecipient: 5,
    accountTokenLimitPerAddress: 30,
  })
  t.equal(loadConfig({ DATA_DIR: 'memory:', HOST: '::' }).passwordResetUrl.startsWith('http://127.0.0.1:3000/'), true)
  t.equal(loadConfig({ DATA_DIR: 'memory:', HOST: '::1' }).passwordResetUrl.startsWith('http://[::1]:3000/'), true)
  const given = loadConfig({
    DATA_DIR: 'memory:',
    PASSWORD_RESET_URL: 'https://blog.example/reset#t={token}',
    REQUIRE_VERIFIED_EMAIL: 'true',
  })
  t.equal(given.passwordResetUrl, 'https://blog.example/reset#t={token}')
  t.equal(given.requireVerifiedEmail, true)
  for (const [env, message] of [
    [
      { PASSWORD_RESET_URL: 'https://blog.example/reset' },
      /PASSWORD_RESET_URL must be an http\(s\) URL containing \{token\}/,
    ],
    [{ EMAIL_VERIFICATION_URL: 'ftp://x/{token}' }, /EMAIL_VERIFICATION_URL must be an http\(s\) URL/],
    [{ EMAIL_VERIFICATION_URL: 'not a url {token}' }, /EMAIL_VERIFICATION_URL must be/],
    [{ REQUIRE_VERIFIED_EMAIL: 'yes' }, /REQUIRE_VERIFIED_EMAIL must be true or false/],
    [{ PASSWORD_RESET_TTL_SECONDS: '10' }, /PASSWORD_RESET_TTL_SECONDS must be an integer from 60 to 86400/],
    [{ EMAIL_VERIFICATION_TTL_SECONDS: '0' }, /EMAIL_VERIFICATION_TTL_SECONDS must be an integer/],
    [{ ACCOUNT_MAIL_LIMIT_PER_RECIPIENT: '0' }, /ACCOUNT_MAIL_LIMIT_PER_RECIPIENT must be an integer/],
  ] as const) {
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), message, JSON.stringify(env))
  }
})

t.test("the feed's base URL: the address listened at unless PUBLIC_URL says; FEED_TITLE", async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:', HOST: '0.0.0.0', PORT: '8080' })
  t.equal(defaults.publicUrl, 'http://127.0.0.1:8080', 'as the links mailed: any address is the loopback one')
  t.equal(defaults.feedTitle, 'Blog')
  for (const [given, kept] of [
    ['https://blog.example.org', 'https://blog.example.org'],
    ['https://blog.example.org/', 'https://blog.example.org'],
    ['https://blog.example.org/api//', 'https://blog.example.org/api'],
    ['HTTP://Blog.Example.org:8443/Api', 'http://blog.example.org:8443/Api'],
  ] as const) {
    t.equal(loadConfig({ DATA_DIR: 'memory:', PUBLIC_URL: given }).publicUrl, kept, given)
  }
  t.equal(loadConfig({ DATA_DIR: 'memory:', FEED_TITLE: 'Notes & <Letters>' }).feedTitle, 'Notes & <Letters>')
  for (const bad of [
    'blog.example.org',
    'ftp://blog.example.org',
    'https://blog.example.org/?x=1',
    'https://x/#a',
    'https://u:p@x/',
  ]) {
    t.throws(
      () => loadConfig({ DATA_DIR: 'memory:', PUBLIC_URL: bad }),
      /PUBLIC_URL must be an http\(s\) URL without query, fragment or credentials/,
      bad,
    )
  }
  t.throws(() => loadConfig({ DATA_DIR: 'memory:', FEED_TITLE: 'x'.repeat(201) }), /FEED_TITLE must be at most 200/)
})

t.test("PUBLIC_URL's path, which image urls start with: none by default, kept without a trailing slash", async (t) => {
  t.equal(loadConfig({ DATA_DIR: 'memory:' }).publicPath, '', 'unset: the address listened at, no path')
  for (const [given, path] of [
    ['https://blog.example.org', ''],
    ['https://blog.example.org/', ''],
    ['https://blog.example.org/blog/', '/blog'],
    ['https://blog.example.org/a/b-c_d.e~f/@x:1', '/a/b-c_d.e~f/@x:1'],
    ['https://blog.example.org/caf%C3%A9', '/caf%C3%A9'],
    ['https://blog.example.org/café', '/caf%C3%A9'],
    [`https://blog.example.org/${'p'.repeat(119)}`, `/${'p'.repeat(119)}`],
  ] as const) {
    t.equal(loadConfig({ DATA_DIR: 'memory:', PUBLIC_URL: given }).publicPath, path, given)
  }
  // `//blog/images/…` would be a network-path reference: a link to the host "blog".
  for (const bad of [
    'https://blog.example.org//blog',
    'https://blog.example.org/a//b',
    'https://blog.example.org/a|b',
    'https://blog.example.org/a%zz',
    `https://blog.example.org/${'p'.repeat(120)}`,
  ]) {
    t.throws(
      () => loadConfig({ DATA_DIR: 'memory:', PUBLIC_URL: bad }),
      /PUBLIC_URL must have a path of at most 120 characters, without empty segments/,
      bad,
    )
  }
})

t.test('production refuses the defaults that misbehave quietly in a fleet, each with one line', async (t) => {
  const production = {
    NODE_ENV: 'production',
    DATA_DIR: 'memory:',
    JWT_SECRET: 'p'.repeat(40),
    PUBLIC_URL: 'https://blog.example.org',
    EMAIL_VERIFICATION_URL: 'https://blog.example.org/verify?token={token}',
    PASSWORD_RESET_URL: 'https://blog.example.org/reset?token={token}',
  }
  const database = { DATABASE_URL: 'postgres://root@127.0.0.1:5432/blog' }
  const smtp = { SMTP_URL: 'smtp://mail.example.org:587' }
  t.throws(
    () => loadConfig({ ...production, ...smtp }),
    /^Invalid configuration: DATABASE_URL is required in production \(NODE_ENV=production\).*EMBEDDED_DATABASE_IN_PRODUCTION=true/,
  )
  t.throws(
    () => loadConfig({ ...production, ...database }),
    /^Invalid configuration: SMTP_URL is required in production .*MAIL_TO_FILES=true/,
  )
  for (const name of ['EMAIL_VERIFICATION_URL', 'PASSWORD_RESET_URL'])
    t.throws(
      () => loadConfig({ ...production, ...database, ...smtp, [name]: '' }),
      new RegExp(
        `^Invalid configuration: ${name} is required in production .*\\{token\\}.*cannot be opened from a mail$`,
      ),
    )
  t.throws(
    () => loadConfig({ ...production, ...database, ...smtp, PUBLIC_URL: '' }),
    /^Invalid configuration: PUBLIC_URL is required in production .*path prefix included/,
  )
  t.equal(loadConfig({ ...production, ...database, ...smtp }).smtpUrl, smtp.SMTP_URL, 'all set: it starts')
  const meant = loadConfig({ ...production, EMBEDDED_DATABASE_IN_PRODUCTION: 'true', MAIL_TO_FILES: 'true' })
  t.equal(meant.databaseUrl, null, 'the embedded database, said on purpose')
  t.equal(meant.smtpUrl, null, 'mail to files, said on purpose')
  t.throws(
    () => loadConfig({ ...production, ...database, MAIL_TO_FILES: 'yes' }),
    /MAIL_TO_FILES must be true or false/,
  )
  t.equal(loadConfig({ DATA_DIR: 'memory:' }).databaseUrl, null, 'outside production the defaults stand')
})

t.test('links mailed are built on PUBLIC_URL, its path prefix included, unless a link is set', async (t) => {
  const config = loadConfig({ DATA_DIR: 'memory:', PORT: '4402', PUBLIC_URL: 'https://blog.example.org/api/' })
  t.equal(config.emailVerificationUrl, 'https://blog.example.org/api/email-verification/confirm?token={token}')
  t.equal(config.passwordResetUrl, 'https://blog.example.org/api/password-reset/confirm?token={token}')
})

t.test('the server refuses to start in production without DATABASE_URL, with one line on stderr', async (t) => {
  const child = spawn(process.execPath, ['--import=tsx', 'src/server.ts'], {
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: '', DATA_DIR: 'memory:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 1)
  t.match(stderr, /^Invalid configuration: DATABASE_URL is required in production[^\n]*\n$/)
})

t.test('media storage: the database by default; s3 needs its bucket; every refusal names its variable', async (t) => {
  const defaults = loadConfig({ DATA_DIR: 'memory:' })
  t.equal(defaults.mediaStorage, 'database')
  t.equal(defaults.s3, null, 'no bucket unless S3_BUCKET is set')
  t.equal(defaults.storageTimeoutMs, 5000)
  t.equal(defaults.storageUploadsMax, 5, 'STORAGE_UPLOADS_MAX: half of DATABASE_POOL_MAX')
  t.equal(loadConfig({ DATA_DIR: 'memory:', DATABASE_POOL_MAX: '1' }).storageUploadsMax, 1, 'and at least 1')
  t.equal(defaults.mediaPublicBaseUrl, null)
  const s3 = loadConfig({
    DATA_DIR: 'memory:',
    MEDIA_STORAGE: 's3',
    S3_BUCKET: 'blog-images',
    S3_ENDPOINT: 'http://127.0.0.1:9000/',
    S3_FORCE_PATH_STYLE: 'true',
    MEDIA_PUBLIC_BASE_URL: 'https://cdn.example.com/images/',
  })
  t.same(s3.s3, {
    endpoint: 'http://127.0.0.1:9000',
    region: 'us-east-1',
    bucket: 'blog-images',
    prefix: 'images/',
    forcePathStyle: true,
  })
  t.equal(s3.mediaPublicBaseUrl, 'https://cdn.example.com/images', 'without its trailing slash')
  const refusals: [Record<string, string>, RegExp][] = [
    [{ MEDIA_STORAGE: 'disk' }, /^Invalid configuration: MEDIA_STORAGE must be one of database, s3/],
    [{ MEDIA_STORAGE: 's3' }, /^Invalid configuration: S3_BUCKET is required when MEDIA_STORAGE=s3/],
    [{ S3_BUCKET: 'Bad_Bucket' }, /^Invalid configuration: S3_BUCKET must be an S3 bucket name/],
    [
      { S3_BUCKET: 'blog-images' },
      /^Invalid configuration: S3_REGION is required with S3_BUCKET when S3_ENDPOINT is unset/,
    ],
    [{ S3_ENDPOINT: 'ftp://store' }, /^Invalid configuration: S3_ENDPOINT must be an http\(s\) URL/],
    [
      { S3_BUCKET: 'b-1', S3_REGION: 'eu-west-1', S3_PREFIX: '/images/' },
      /^Invalid configuration: S3_PREFIX must not start with \//,
    ],
    [{ STORAGE_TIMEOUT_MS: '10' }, /^Invalid configuration: STORAGE_TIMEOUT_MS must be an integer from 100 to 120000/],
    [
      { STORAGE_UPLOADS_MAX: '10' },
      /^Invalid configuration: STORAGE_UPLOADS_MAX must be below DATABASE_POOL_MAX \(10\)/,
    ],
    [
      { MEDIA_PUBLIC_BASE_URL: 'cdn.example.com' },
      /^Invalid configuration: MEDIA_PUBLIC_BASE_URL must be an http\(s\) URL/,
    ],
    [
      { MEDIA_PUBLIC_BASE_URL: `https://cdn.example.com/${'a'.repeat(130)}` },
      /^Invalid configuration: MEDIA_PUBLIC_BASE_URL must be at most 130 characters/,
    ],
    [
      { MEDIA_PUBLIC_BASE_URL: 'https://cdn.example.com//images' },
      /^Invalid configuration: MEDIA_PUBLIC_BASE_URL must be at most/,
    ],
  ]
  for (const [env, message] of refusals) {
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), message, JSON.stringify(env))
    t.throws(() => loadConfig({ DATA_DIR: 'memory:', ...env }), ConfigError)
  }
  // Production with everything it asks for, so that only the storage setting under test is refused.
  const production = {
    DATA_DIR: 'memory:',
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://db/blog',
    JWT_SECRET: 'x'.repeat(40),
    SMTP_URL: 'smtp://mail',
    EMAIL_VERIFICATION_URL: 'https://blog.example.com/v?t={token}',
    PASSWORD_RESET_URL: 'https://blog.example.com/r?t={token}',
    PUBLIC_URL: 'https://blog.example.com',
  }
  t.throws(
    () =>
      loadConfig({
        ...production,
        MEDIA_STORAGE: 's3',
        S3_BUCKET: 'blog-images',
        S3_ENDPOINT: 'https://minio.internal',
      }),
    /^Invalid configuration: S3_REGION is required with S3_BUCKET in production/,
    'production names the region even for an S3-compatible store',
  )
  const productionWith = (base: string) => () => loadConfig({ ...production, MEDIA_PUBLIC_BASE_URL: base })
  t.throws(
    productionWith('http://cdn.example.com/images'),
    /^Invalid configuration: MEDIA_PUBLIC_BASE_URL must be https in production/,
    'production refuses images over http',
  )
  t.equal(productionWith('https://cdn.example.com/images')().mediaPublicBaseUrl, 'https://cdn.example.com/images')
  t.equal(
    loadConfig({ DATA_DIR: 'memory:', MEDIA_PUBLIC_BASE_URL: 'http://127.0.0.1:9000/images' }).mediaPublicBaseUrl,
    'http://127.0.0.1:9000/images',
    'outside production, a local http store will do',
  )
})
