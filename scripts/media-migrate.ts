// `npm run media:migrate -- --to s3|database [--batch N] [--batches N]`: moves every stored
// image's bytes to the bucket (S3_* settings) or back into the database, a batch at a time, while
// instances keep serving them (each row moves only once its bytes are at the new place). Safe to
// interrupt and run again: it picks up the rows still at the old location. Set MEDIA_STORAGE to
// the same target on the instances, so new images go there too. --to database ends with the
// bucket sweep, which deletes objects no row needs. --batches stops after that many (tests).
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { sweepBucket } from '../src/content/thumbnails/bucket-store.ts'
import { openDatabase } from '../src/db/database.ts'
import { BUCKET_SWEEP_GRACE_MS } from '../src/jobs/sweep-bucket.ts'
import { countAt, moveBatchToDatabase, moveBatchToS3 } from '../src/storage/migration-store.ts'
import { makeStorage } from '../src/storage/storage.ts'

if (existsSync('.env')) process.loadEnvFile('.env')

const usage = 'usage: npm run media:migrate -- --to s3|database [--batch 1-1000] [--batches N]'
let options
try {
  options = parseArgs({
    options: { to: { type: 'string' }, batch: { type: 'string' }, batches: { type: 'string' } },
  }).values
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`)
  process.exit(2)
}
const to = options.to
const batch = Number(options.batch ?? 100)
const batches = options.batches === undefined ? Infinity : Number(options.batches)
if ((to !== 's3' && to !== 'database') || !Number.isInteger(batch) || batch < 1 || batch > 1000 || !(batches >= 1)) {
  console.error(usage)
  process.exit(2)
}

let config
try {
  config = loadConfig()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
const storage = await makeStorage(config)
if (storage.s3 === null) {
  console.error('media:migrate needs the bucket: set S3_BUCKET (and S3_REGION, S3_ENDPOINT as needed)')
  process.exit(1)
}
const database = await openDatabase(config)
const totals = { moved: 0, skipped: 0, missing: 0 }
try {
  // Keyset order: a row left behind (missing, or changed meanwhile) is passed, never met again.
  let after = ''
  for (let done = 0; done < batches; done++) {
    const counts =
      to === 's3'
        ? await moveBatchToS3(database.prisma, storage.s3, batch, after)
        : await moveBatchToDatabase(database.prisma, storage, batch, after)
    totals.moved += counts.moved
    totals.skipped += counts.skipped
    totals.missing += counts.missing
    console.log(
      `moved ${totals.moved} images to ${to} (${totals.skipped} changed meanwhile, ${totals.missing} without their object)`,
    )
    if (counts.lastKey === null) break
    after = counts.lastKey
  }
  if (to === 'database' && batches === Infinity) {
    const deleted = await sweepBucket(database.prisma, storage, BUCKET_SWEEP_GRACE_MS)
    console.log(`bucket sweep: ${deleted} objects no image needs deleted`)
  }
  const left = await countAt(database.prisma, to === 's3' ? 'database' : 's3')
  console.log(`done: ${totals.moved} moved to ${to}; ${left} still at the other place`)
  if (left > 0 && batches === Infinity) {
    // Rows written meanwhile by instances still on the old MEDIA_STORAGE go with a second run; rows
    // whose object is missing stay in the bucket: their images answer 404 whatever runs.
    console.error(
      to === 'database' && totals.missing > 0
        ? `${left} images are still in the bucket, ${totals.missing} of them without their object there: keep the S3 settings while any is used, or their getImage answers 503`
        : `${left} images are still at the other place (written meanwhile): run it again once every instance has MEDIA_STORAGE=${to}`,
    )
    process.exitCode = 1
  }
} catch (error) {
  console.error(`stopped: ${(error as Error).message}; run it again to go on from here`)
  process.exitCode = 1
} finally {
  storage.close()
  await database.close()
}
