// The render-flood phase of `npm run bench` alone (scripts/bench/render-flood.ts), for measuring it
// without the rest: `npx tsx scripts/bench-render-flood.ts` (DATABASE_URL for PostgreSQL;
// BENCH_SAMPLES for the number of innocent writes per figure, 7 by default).
import { scratchDatabase } from './bench/database.ts'
import { formatRenderFlood, measureRenderFlood } from './bench/render-flood.ts'
import { BENCH_ADMIN } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const database = await scratchDatabase(process.env.DATABASE_URL)
const server = await startServer({
  ...database.env,
  ...BENCH_ADMIN,
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
})
try {
  const result = await measureRenderFlood(server.url, Number(process.env.BENCH_SAMPLES ?? 7))
  console.log(`render flood (${database.kind}):\n${formatRenderFlood(result)}`)
  console.log(JSON.stringify(result))
} finally {
  await server.stop()
  await database.drop()
}
