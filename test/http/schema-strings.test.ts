// Each string of the spec is held once however many routes use it (src/http/routes.ts,
// internStrings): fastify-openapi-glue clones every route's schema, and without the interning the
// process held ErrorCode's description (5.7 KB, in every error answer) once per route using it
// (492 copies; 5 with it). Counted in a heap snapshot of this process with one app built.
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { build } from '../helpers/build.ts'

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
  nodes: number[]
  strings: string[]
}

/**
 * How many string objects on the heap (flat, sliced or concatenated) begin as `text` does: the
 * snapshot keeps only the first kilobyte or so of a string's content as its name.
 */
function copiesOnHeap(text: string): number {
  const file = writeHeapSnapshot(join(tmpdir(), `schema-strings-${process.pid}.heapsnapshot`))
  try {
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot
    const {
      node_fields: fields,
      node_types: [types],
    } = snapshot.snapshot.meta
    const typeField = fields.indexOf('type')
    const nameField = fields.indexOf('name')
    const stringTypes = new Set(['string', 'sliced string', 'concatenated string'].map((type) => types.indexOf(type)))
    const start = text.slice(0, 500)
    const names = new Set(snapshot.strings.flatMap((name, index) => (name.startsWith(start) ? [index] : [])))
    let copies = 0
    for (let node = 0; node < snapshot.nodes.length; node += fields.length) {
      if (names.has(snapshot.nodes[node + nameField]!) && stringTypes.has(snapshot.nodes[node + typeField]!)) copies++
    }
    return copies
  } finally {
    rmSync(file, { force: true })
  }
}

t.test("ErrorCode's description is held a few times, not once per route", async (t) => {
  const spec = loadSpec() as unknown as { components: { schemas: { ErrorCode: { description: string } } } }
  const description = spec.components.schemas.ErrorCode.description
  t.ok(description.length > 5000, 'a long string, so that each copy counts')
  const app = await build(t)
  t.ok(app.printRoutes().split('\n').length > 50, 'the app has its routes')
  const copies = copiesOnHeap(description)
  t.ok(copies > 0, `${copies} copies: the snapshot sees them`)
  t.ok(copies <= 10, `${copies} copies: one per routine that read the spec, not one per route`)
})
