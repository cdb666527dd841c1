// The media phase of `npm run bench` alone (scripts/bench/media.ts), on both storage drivers:
// `npx tsx scripts/bench-media.ts` (DATABASE_URL for PostgreSQL; BENCH_DURATION_SECONDS per
// getImage figure, 10 by default).
import { scratchDatabase } from './bench/database.ts'
import { describeMedia, MEDIA_BENCH_ENV, measureMedia, startS3Process } from './bench/media.ts'
import { BENCH_ADMIN, BENCH_WRITE_BUDGET } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const duration = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
const database = await scratchDatabase(process.env.DATABASE_URL)
const s3 = await startS3Process()
try {
  for (const driver of ['database', 's3'] as const) {
    const server = await startServer({
      ...database.env,
      ...BENCH_ADMIN,
      ...BENCH_WRITE_BUDGET,
      ...MEDIA_BENCH_ENV,
      ...(driver === 's3' ? s3.env : {}),
      REGISTER_LIMIT_PER_ADDRESS: '1000000',
    })
    try {
      const figures = await measureMedia({
        driver,
        serverUrl: server.url,
        serverPid: server.child.pid!,
        duration,
        connections: 20,
      })
      console.log(`${describeMedia(figures)}\n${JSON.stringify(figures)}`)
    } finally {
      await server.stop()
    }
  }
} finally {
  await s3.stop()
  await database.drop()
}
