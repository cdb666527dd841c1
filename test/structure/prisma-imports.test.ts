// Only the data layer talks to Prisma: the stores (`*-store.ts`) and `src/db/`. Services receive
// their stores and never see the client, its types or a transaction of it, so what a service does
// to the database is always a named store method. Checked on the source: every import of the
// generated client, of a `@prisma/` package or of a Prisma driver adapter, anywhere else in src/,
// fails this test and names the file.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SRC = join(ROOT, 'src')
const GENERATED_PRISMA = join(SRC, 'generated', 'prisma')

/**
 * Files allowed to import Prisma for now, and why. An entry that no longer imports it fails the
 * test: the list cannot outlive its reasons.
 */
const KNOWN_EXCEPTIONS: Record<string, string> = {}

const SOURCE = /\.(ts|mts|js|mjs)$/
const IMPORTS = [
  /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bimport\s+['"]([^'"]+)['"]/g,
]

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return path === join(SRC, 'generated') ? [] : sourceFiles(path)
    return SOURCE.test(entry.name) ? [path] : []
  })
}

/** The module specifiers a file imports or re-exports from, type-only ones included. */
const importsOf = (source: string) =>
  IMPORTS.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!))

function isPrisma(specifier: string, file: string): boolean {
  if (specifier.startsWith('.')) return resolve(file, '..', specifier).startsWith(GENERATED_PRISMA)
  return specifier.startsWith('@prisma/') || /(^|[/-])prisma(-|$)/.test(specifier)
}

const mayImportPrisma = (path: string) => path.startsWith('src/db/') || path.endsWith('-store.ts')

const prismaImports = new Map(
  sourceFiles(SRC)
    .map(
      (file) =>
        [
          relative(ROOT, file),
          importsOf(readFileSync(file, 'utf8')).filter((specifier) => isPrisma(specifier, file)),
        ] as const,
    )
    .filter(([, specifiers]) => specifiers.length > 0),
)

t.test('the check sees what it looks for', async (t) => {
  t.ok(
    prismaImports.get('src/db/database.ts')?.includes('../generated/prisma/client.ts'),
    'the client, by a relative path',
  )
  t.ok(prismaImports.get('src/db/database.ts')?.includes('@prisma/adapter-pg'), 'a @prisma/ package')
  t.ok(prismaImports.get('src/db/database.ts')?.includes('pglite-prisma-adapter'), 'a driver adapter')
  t.ok(
    prismaImports.get('src/content/posts/post-list-store.ts')?.includes('../../generated/prisma/enums.ts'),
    'its enums',
  )
  t.same(
    importsOf("import type {\n  A,\n  B,\n} from './x.ts'\nexport { C } from \"./y.ts\"\nawait import('./z.ts')"),
    ['./x.ts', './y.ts', './z.ts'],
  )
})

t.test('only the stores and src/db/ import Prisma', async (t) => {
  const outside = [...prismaImports].filter(([path]) => !mayImportPrisma(path) && !(path in KNOWN_EXCEPTIONS))
  t.same(
    outside.map(([path, specifiers]) => `${path} imports ${specifiers.join(', ')}`),
    [],
    'a service takes its store; what it needs from the database is a method of that store',
  )
})

t.test('every known exception still is one', async (t) => {
  for (const [path, reason] of Object.entries(KNOWN_EXCEPTIONS)) {
    t.ok(prismaImports.has(path), `${path} (${reason}) no longer imports Prisma: take it off the list`)
  }
})

t.test('and only they, and the composition root that builds the stores, use the client', async (t) => {
  // An import is not needed to reach it: `services.database.prisma` is at hand in every handler
  // and job. Code names it as `prisma` (or a transaction of it as `Tx`), in any form of access.
  const CLIENT = /\b(?:prisma|Tx)\b/
  const users = sourceFiles(SRC)
    .map((file) => relative(ROOT, file))
    .filter((path) => !mayImportPrisma(path) && path !== 'src/services.ts')
    .filter((path) => CLIENT.test(readFileSync(join(ROOT, path), 'utf8')))
  t.same(users, [], 'a service, handler or job reaches the database through a store')
  t.ok(CLIENT.test(readFileSync(join(SRC, 'services.ts'), 'utf8')), 'the check sees the composition root use it')
})
