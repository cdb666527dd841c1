// The revisions phase of `npm run bench` alone (scripts/bench/revisions.ts):
// `npx tsx scripts/bench-revisions.ts` (DATABASE_URL for PostgreSQL; BENCH_SAMPLES updates per run,
// 100 by default; BENCH_EDITS edits of the 100 000-character post, 1 000 by default).
import { formatRevisions, measureRevisions, revisionsMet, REVISIONS_TARGET } from './bench/revisions.ts'

const result = await measureRevisions(process.env.DATABASE_URL, {
  samples: Number(process.env.BENCH_SAMPLES ?? 100),
  bigEdits: Number(process.env.BENCH_EDITS ?? 1000),
})
console.log(`revisions (${process.env.DATABASE_URL ? 'postgres' : 'embedded'}):\n${formatRevisions(result)}`)
console.log(`  ${revisionsMet(result) ? 'met ' : 'MISS'}  ${REVISIONS_TARGET}`)
console.log(JSON.stringify(result))
