// A module resolve hook (node:module register) for test/lazy-modules.test.ts: appends every URL
// the process resolves to the file it is given, synchronously, so the list is complete as soon as
// the import that caused it has returned.
import { appendFileSync } from 'node:fs'

let log

export function initialize(data) {
  log = data.log
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context)
  appendFileSync(log, `${resolved.url}\n`)
  return resolved
}
