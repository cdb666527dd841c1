// `npm run sdk:check`: the SDKs client teams generate from openapi/openapi.yaml, tried as they use
// them. For each generator (scripts/sdk-check/*.ts): generate a client into .scratch/sdk-check/
// (a warning fails), check the names it exports (scripts/sdk-check/names.ts), type-check its
// journey (scripts/sdk-check/journeys/) with the generated code under `strict`, then run the
// journey against the service started here (embedded database in memory, a free port): register,
// create posts, upload a thumbnail from a Blob, download an image as a Blob, list with a cursor,
// branch on an error's `code`, then (hey-api's and orval's) make an API token and write and read
// with it in place of the session (openapi-zod-client's journey: no Blobs, but listPosts by
// category, whose schema it once could not compile). Exits 1 when any generator fails any of these.
// `npm run sdk:check -- <file>` (a path from the project's root) checks another document instead,
// a copy being edited; its clients still run against the service, which serves openapi/openapi.yaml.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import ts from 'typescript'
import { parse } from 'yaml'
import { type OpenApiDocument, SPEC_PATH } from '../src/spec.ts'
import { startServer } from './bench/server.ts'
import type { Generator } from './sdk-check/generator.ts'
import { heyApi } from './sdk-check/hey-api.ts'
import { globalNames, nameProblems } from './sdk-check/names.ts'
import { openapiTypescript } from './sdk-check/openapi-typescript.ts'
import { openapiZodClient } from './sdk-check/openapi-zod-client.ts'
import { orval } from './sdk-check/orval.ts'

const at = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))
const WORK = at('.scratch/sdk-check')
const SPEC = process.argv[2] ? resolve(process.argv[2]) : SPEC_PATH
const spec = parse(readFileSync(SPEC, 'utf8')) as OpenApiDocument

/** As a client team's project would compile: a bundler's resolution, browser and Node globals. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  skipLibCheck: true,
}

/** Runs a generator; what it wrote through console.warn and console.error are its warnings. */
async function generatorProblems(generate: () => Promise<void>): Promise<string[]> {
  const problems: string[] = []
  const { warn, error } = console
  console.warn = console.error = (...args: unknown[]) =>
    void problems.push(`generator warning: ${format(...args).trim()}`)
  try {
    await generate()
  } catch (failure) {
    problems.push(`generator failed: ${failure instanceof Error ? failure.message : String(failure)}`)
  } finally {
    Object.assign(console, { warn, error })
  }
  return problems
}

async function check(generator: Generator, serverUrl: string): Promise<string[]> {
  const dir = join(WORK, generator.key)
  mkdirSync(dir, { recursive: true })
  const problems = await generatorProblems(() => generator.generate(SPEC, join(dir, 'client'), serverUrl))

  copyFileSync(at('scripts/sdk-check/journeys/kit.ts'), join(dir, 'kit.ts'))
  const journey = join(dir, 'journey.ts')
  copyFileSync(at(`scripts/sdk-check/journeys/${generator.key}.ts`), journey)
  const program = ts.createProgram([journey], COMPILER_OPTIONS)
  const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => dir, getNewLine: () => '\n' }
  problems.push(
    ...ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => `type error: ${ts.formatDiagnostic(diagnostic, host).trim()}`),
  )

  if (generator.module !== null) {
    const checker = program.getTypeChecker()
    const module = program.getSourceFile(join(dir, 'client', generator.module))
    const exported = module
      ? checker.getExportsOfModule(checker.getSymbolAtLocation(module)!).map((symbol) => symbol.name)
      : []
    problems.push(...nameProblems(exported, spec, generator, globalNames(program)).map((problem) => `name: ${problem}`))
  }

  // A journey that does not compile is not run: what it would do is not what it says.
  if (!problems.some((problem) => problem.startsWith('type error'))) {
    const run = spawnSync(process.execPath, ['--import=tsx', journey], {
      env: { ...process.env, API_URL: serverUrl },
      encoding: 'utf8',
      timeout: 120_000,
    })
    if (run.status !== 0)
      problems.push(
        `journey: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n').slice(0, 8).join('\n  ')}`,
      )
  }
  return problems
}

const GENERATORS = [openapiTypescript, heyApi, orval, openapiZodClient]

rmSync(WORK, { recursive: true, force: true })
const server = await startServer({ DATABASE_URL: '', DATA_DIR: 'memory:', LOG_LEVEL: 'error' })
let failed = 0
try {
  for (const generator of GENERATORS) {
    const problems = await check(generator, server.url)
    if (problems.length > 0) failed++
    console.log(
      `\n${problems.length === 0 ? '✔' : '✘'} ${generator.name}: ${problems.length === 0 ? 'no warning, types check, journey passed' : `${problems.length} problem(s)`}`,
    )
    for (const problem of problems) console.log(`  ${problem}`)
  }
} finally {
  await server.stop()
}
console.log(
  `\nSDK check of ${SPEC}: ${failed === 0 ? `all ${GENERATORS.length} generators pass` : `${failed} of ${GENERATORS.length} generators fail`} (output in .scratch/sdk-check/)`,
)
process.exit(failed === 0 ? 0 : 1)
