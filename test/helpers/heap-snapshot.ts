// Counts string objects in a heap snapshot, for the tests that show a string is held once
// (test/http/schema-strings.test.ts) or not at all (test/db/query-compiler-wasm.test.ts). Taking
// a snapshot collects the garbage first.
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
  nodes: number[]
  strings: string[]
}

/**
 * For each of `starts`, how many string objects (flat, sliced or concatenated) in the snapshot
 * begin with it (a few hundred characters at most: a snapshot keeps only the first kilobyte or so
 * of a string as its name).
 */
export function stringsInSnapshot(file: string, starts: string[]): number[] {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta
  const typeField = fields.indexOf('type')
  const nameField = fields.indexOf('name')
  const stringTypes = new Set(['string', 'sliced string', 'concatenated string'].map((type) => types.indexOf(type)))
  return starts.map((start) => {
    const names = new Set(snapshot.strings.flatMap((name, index) => (name.startsWith(start) ? [index] : [])))
    let count = 0
    for (let node = 0; node < snapshot.nodes.length; node += fields.length) {
      if (names.has(snapshot.nodes[node + nameField]!) && stringTypes.has(snapshot.nodes[node + typeField]!)) count++
    }
    return count
  })
}

/** stringsInSnapshot of this process's heap, now. */
export function stringsOnHeap(start: string): number {
  const file = writeHeapSnapshot(join(tmpdir(), `strings-${process.pid}-${Date.now()}.heapsnapshot`))
  try {
    return stringsInSnapshot(file, [start])[0]!
  } finally {
    rmSync(file, { force: true })
  }
}
