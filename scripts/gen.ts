// `npm run gen`: regenerates everything under src/generated from its source of truth —
// TypeScript types from openapi/openapi.yaml and the Prisma client from prisma/schema.prisma.
// CI runs it on a clean clone and fails when the committed output differs.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
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

// Prisma's client loads its query compiler's WebAssembly from a module that holds it as one base64
// string (4.5 MB). Imported as ES module, as Prisma generates it, that module and its string stay
// in memory for as long as the process lives: about 9 MiB resident. Required as CommonJS instead,
// compiled, and dropped from require's cache, the string can be collected once the WebAssembly
// module is built (test/db/query-compiler-wasm.test.ts). Applied to each fresh output, so `npm run
// gen` stays idempotent; a Prisma release that generates the loader otherwise stops it here.
const loader = new URL('../src/generated/prisma/internal/class.ts', import.meta.url)
const IMPORTED =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/[\w.]+)\.wasm-base64\.mjs"\)\n(\s*)return await decodeBase64AsWasm\(wasm\)/
const generated = readFileSync(loader, 'utf8')
const imported = IMPORTED.exec(generated)
if (imported === null) throw new Error(`scripts/gen.ts: the query compiler's loader in ${loader.pathname} changed`)
const [, runtime, indent] = imported
writeFileSync(
  loader,
  generated.replace(
    IMPORTED,
    [
      `// Rewritten by scripts/gen.ts: required as CommonJS and dropped from the cache, so that`,
      `// the base64 string can be collected once the module is compiled.`,
      `const { createRequire } = await import('node:module')`,
      `const require = createRequire(import.meta.url)`,
      `const base64Module = require.resolve("${runtime}.wasm-base64.js")`,
      `try {`,
      `  return await decodeBase64AsWasm((require(base64Module) as { wasm: string }).wasm)`,
      `} finally {`,
      `  delete require.cache[base64Module]`,
      `}`,
    ].join(`\n${indent}`),
  ),
)
