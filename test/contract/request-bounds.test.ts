// Every request schema bounds what it accepts: objects are closed, arrays have maxItems, strings
// maxLength. From those bounds, the most entries and the deepest nesting a valid JSON body can
// have are computed here: the JSON parser's bounds (src/http/body/json-body.ts) must lie above them, so
// they refuse only bodies the schemas would refuse anyway.
import t from 'tap'
import { MAX_JSON_DEPTH, MAX_JSON_ENTRIES } from '../../src/http/body/json-body.ts'
import { listOperations } from '../../src/spec.ts'
import { specSchemas, type Json } from '../helpers/spec-schemas.ts'

const { spec, deref } = specSchemas()

interface Reach {
  entries: number
  depth: number
}

/** The most entries and levels a value valid against `schema` can have; records unbounded parts. */
function reach(schema: Json, where: string, unbounded: string[]): Reach {
  const node = deref(schema)
  const alternatives = [...((node.oneOf ?? node.anyOf ?? []) as Json[])]
  if (alternatives.length > 0) {
    const each = alternatives.map((alternative, index) => reach(alternative, `${where}/${index}`, unbounded))
    return { entries: Math.max(...each.map((r) => r.entries)), depth: Math.max(...each.map((r) => r.depth)) }
  }
  const types = [node.type ?? []].flat() as string[]
  if (types.includes('object')) {
    if (node.additionalProperties !== false) unbounded.push(`${where}: object without additionalProperties: false`)
    const members = Object.entries((node.properties ?? {}) as Record<string, Json>).map(([name, property]) =>
      reach(property, `${where}/${name}`, unbounded),
    )
    return {
      entries: members.reduce((sum, member) => sum + 1 + member.entries, 0),
      depth: 1 + Math.max(0, ...members.map((member) => member.depth)),
    }
  }
  if (types.includes('array')) {
    if (typeof node.maxItems !== 'number') unbounded.push(`${where}: array without maxItems`)
    const item = reach(node.items as Json, `${where}/items`, unbounded)
    return { entries: Number(node.maxItems ?? Infinity) * (1 + item.entries), depth: 1 + item.depth }
  }
  if (
    types.includes('string') &&
    typeof node.maxLength !== 'number' &&
    node.enum === undefined &&
    node.const === undefined
  ) {
    unbounded.push(`${where}: string without maxLength`)
  }
  if (types.length === 0 && node.enum === undefined && node.const === undefined) unbounded.push(`${where}: no type`)
  return { entries: 0, depth: 0 }
}

t.test('every JSON request body and parameter is bounded, within the parser’s bounds', async (t) => {
  const unbounded: string[] = []
  let most: Reach & { where: string } = { entries: 0, depth: 0, where: '' }
  for (const { method, path, operation } of listOperations(spec)) {
    const parameters = [
      ...(((spec.paths[path] as Json).parameters ?? []) as Json[]),
      ...((operation.parameters ?? []) as Json[]),
    ]
    for (const parameter of parameters.map(deref))
      reach(parameter.schema as Json, `${method} ${path} ${String(parameter.in)} ${String(parameter.name)}`, unbounded)
    const body = operation.requestBody === undefined ? undefined : deref(operation.requestBody as Json)
    const json = (body?.content as Record<string, Json> | undefined)?.['application/json']
    if (json === undefined) continue
    const found = reach(json.schema as Json, `${method} ${path} body`, unbounded)
    if (found.entries > most.entries || found.depth > most.depth) most = { ...found, where: `${method} ${path}` }
  }
  t.same(unbounded, [], 'no unbounded part')
  t.ok(most.entries < MAX_JSON_ENTRIES, `at most ${most.entries} entries in a valid body (${most.where})`)
  t.ok(most.depth < MAX_JSON_DEPTH, `at most ${most.depth} levels in a valid body`)
})
