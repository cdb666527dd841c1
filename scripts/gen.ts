// `npm run gen`: regenerates everything under src/generated from its source of truth —
// TypeScript types from openapi/openapi.yaml and the Prisma client from prisma/schema.prisma.
// CI runs it on a clean clone and fails when the committed output differs.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { specTypes } from './openapi-types.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url))
const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(command, args, { cwd: root, stdio: 'inherit', env })

writeFileSync(
  new URL('../src/generated/api.ts', import.meta.url),
  await specTypes(new URL('../openapi/openapi.yaml', import.meta.url)),
)

// `prisma generate` works from WebAssembly, but the CLI insists on finding a native schema engine
// first and cannot download one here (TRAPS.md); any existing file satisfies that check.
run(bin('prisma'), ['generate', '--schema', 'prisma/schema.prisma'], {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
})
