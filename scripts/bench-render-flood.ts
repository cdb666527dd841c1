// The render-flood phase of `npm run bench` alone (scripts/bench/render-flood.ts), for measuring it
// without the rest: `npx tsx scripts/bench-render-flood.ts` (DATABASE_URL for PostgreSQL;
// BENCH_SAMPLES for the number of innocent writes per figure, 7 by default; BENCH_FLOOD for one of
// the flood bodies by name, both by default). The server's write budget per account is lifted
// (BENCH_WRITE_BUDGET), as in `npm run bench`: the flooders write far past 120 a minute.
import { scratchDatabase } from './bench/database.ts'
import { FLOOD_BODIES, formatRenderFlood, measureRenderFlood, type FloodBody } from './bench/render-flood.ts'
import { BENCH_ADMIN, BENCH_WRITE_BUDGET } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const database = await scratchDatabase(process.env.DATABASE_URL)
const server = await startServer({
  ...database.env,
  ...BENCH_ADMIN,
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  // Three accounts flood the renderer with createPost: far past a person's write budget.
  ...BENCH_WRITE_BUDGET,
})
try {
  const bodies = process.env.BENCH_FLOOD ? [process.env.BENCH_FLOOD as FloodBody] : Object.keys(FLOOD_BODIES)
  for (const body of bodies as FloodBody[]) {
    if (!(body in FLOOD_BODIES)) throw new Error(`BENCH_FLOOD: one of ${Object.keys(FLOOD_BODIES).join('; ')}`)
    const result = await measureRenderFlood(server.url, body, Number(process.env.BENCH_SAMPLES ?? 7))
    console.log(`render flood (${database.kind}):\n${formatRenderFlood(result)}`)
    console.log(JSON.stringify(result))
  }
} finally {
  await server.stop()
  await database.drop()
}
