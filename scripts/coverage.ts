// The coverage of the last `tap` run over src/, checked against the floors in package.json
// ("coverage"), so that it cannot fall without someone lowering a floor on purpose. `npm test`
// runs it after the whole suite; after a run of a few files it would rightly fail.
//
// Why not tap's own report: tsx's inline source maps carry `sourcesContent: [null]`, which
// v8-to-istanbul takes as the original text, so every file counted as one covered statement.
// Dropping that field makes it read the .ts file from disk.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Report } from 'c8'
import type { CoverageMap } from 'istanbul-lib-coverage'

type Metric = 'statements' | 'branches' | 'functions' | 'lines'
type SourceMapCache = Record<string, { data?: { sourcesContent?: (string | null)[] } }>

const root = fileURLToPath(new URL('..', import.meta.url))
const coverageDir = join(root, '.tap/coverage')
const floors = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { coverage: Record<Metric, number> })
  .coverage

for (const name of readdirSync(coverageDir).filter((file) => file.endsWith('.json'))) {
  const file = join(coverageDir, name)
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { 'source-map-cache'?: SourceMapCache }
  for (const entry of Object.values(raw['source-map-cache'] ?? {})) {
    if (entry.data?.sourcesContent?.every((content) => content === null)) delete entry.data.sourcesContent
  }
  writeFileSync(file, JSON.stringify(raw))
}

const report = new Report({
  include: ['src/**/*.ts'],
  exclude: ['src/generated/**'],
  reporter: ['text-summary', 'json-summary'],
  reportsDirectory: join(root, '.tap/report'),
  tempDirectory: coverageDir,
  excludeNodeModules: true,
  // Files no test loaded count as uncovered, not as absent.
  all: true,
  src: [join(root, 'src')],
})
await report.run()
// Not in c8's type declarations, but the method its own check-coverage command uses.
const coverageMap = await (
  report as unknown as { getCoverageMapFromAllCoverageFiles(): Promise<CoverageMap> }
).getCoverageMapFromAllCoverageFiles()
const summary = coverageMap.getCoverageSummary()
const below = (Object.keys(floors) as Metric[]).filter((metric) => summary[metric].pct < floors[metric])
for (const metric of below)
  console.error(
    `coverage of ${metric} is ${summary[metric].pct}%, under its floor of ${floors[metric]}% (package.json "coverage")`,
  )
process.exit(below.length === 0 ? 0 : 1)
