// One way to build the app for every test: the production buildApp with a test configuration.
// The database is the embedded PGlite (in memory) unless DATABASE_URL is set, in which case every
// test runs against that PostgreSQL — `npm test` is run once each way in CI.
// Every response a test receives through the app it builds is checked against the spec
// (test/helpers/contract.ts): a response that breaks the contract fails the test that asked for it.
// TEST_MEDIA_STORAGE=s3 (npm run test:s3) stores every app's new images in an S3-compatible
// server this process starts once (test/helpers/s3.ts) instead of the database.
import type { Test } from 'tap'
import { buildApp, type AppOptions } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { makeContractChecker, type CheckerOptions } from './contract.ts'
import { watchContract } from './contract-watch.ts'
import { reportOpenHandlesAtExit } from './exit-report.ts'
import { startS3, type TestS3 } from './s3.ts'

export const usingPostgres = Boolean(process.env.DATABASE_URL)

/** The S3-compatible server every app of this process stores images in, under TEST_MEDIA_STORAGE=s3. */
export const testS3: TestS3 | null = process.env.TEST_MEDIA_STORAGE === 's3' ? await startS3() : null

reportOpenHandlesAtExit()

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    DATA_DIR: 'memory:',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    // The cheapest bcrypt cost: tests check behaviour, the benchmark measures cost.
    BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
    // Every test request comes from 127.0.0.1, and on PostgreSQL the counters outlive a test file:
    // address limits are tested on their own, from addresses of their own (test/http/login-limits).
    REGISTER_LIMIT_PER_ADDRESS: '1000000',
    LOGIN_LIMIT_PER_ADDRESS: '1000000',
    SESSIONS_LIMIT_PER_ADDRESS: '1000000',
    ACCOUNT_MAIL_LIMIT_PER_ADDRESS: '1000000',
    ACCOUNT_TOKEN_LIMIT_PER_ADDRESS: '1000000',
    // Many tests write a lot from one account; the write budget is tested on its own, with budgets
    // of its own (test/http/limits/write-budget.test.ts). Counted all the same: the headers are there.
    WRITE_BUDGET: '1000000',
    // Tests build several apps in one process: one app's start-up is lag for the others. The
    // overload guard is tested on its own (test/http/limits/overload.test.ts).
    EVENT_LOOP_MAX_DELAY_MS: '0',
    // Most tests comment as new users, often several times in a row: the comment policy and flood
    // limit are tested on their own (test/content/comments/moderation*.test.ts, flood.test.ts),
    // each setting what it tests. Links are left at their default, as no other test writes three.
    COMMENT_MODERATION: 'off',
    COMMENT_MIN_INTERVAL_SECONDS: '0',
    ...testS3?.env,
    ...env,
  })
}

export async function build(t: Test, env: Record<string, string> = {}, options: AppOptions & CheckerOptions = {}) {
  const { internalErrorsExpected, ...appOptions } = options
  const contract = watchContract(makeContractChecker({ internalErrorsExpected }))
  const app = await buildApp(testConfig(env), { ...appOptions, handlers: contract.handlers(appOptions.handlers) })
  t.teardown(() => app.close())
  contract.inject(app)
  return Object.assign(app, { contractFetch: contract.fetch })
}
