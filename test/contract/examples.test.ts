// The spec's own examples validate against their schemas, so client teams copying an example
// get a value the service accepts (requests) or really sends (responses).
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import t from 'tap'
import { listOperations, loadSpec } from '../../src/spec.ts'

const spec = loadSpec()
const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ['xml', 'externalDocs'] })
addFormats.default(ajv)
// Schemas reference each other as `#/components/schemas/X`; registered once as `spec#/$defs/X`.
const pointAtDefs = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"spec#/$defs/'))
ajv.addSchema({ $id: 'spec', $defs: pointAtDefs(spec.components.schemas) })

type Json = Record<string, unknown>
const deref = (node: Json): Json => {
  const ref = node.$ref as string | undefined
  if (!ref) return node
  return ref.slice(2).split('/').reduce<Json>((at, key) => at[key] as Json, spec as unknown as Json)
}
/** A schema with its internal references pointed at the registered components. */
const compile = (schema: Json) => ajv.compile(pointAtDefs(schema))

function examplesOf(media: Json): [string, unknown][] {
  const examples = (media.examples ?? {}) as Record<string, Json>
  return Object.entries(examples).map(([name, example]) => [name, deref(example).value])
}

t.test('every request and response example matches its schema', async (t) => {
  let checked = 0
  for (const { method, path, operation } of listOperations()) {
    const bodies: [string, Json][] = []
    const requestBody = operation.requestBody ? deref(operation.requestBody as Json) : undefined
    for (const [type, media] of Object.entries((requestBody?.content ?? {}) as Record<string, Json>)) bodies.push([`request ${type}`, media])
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [type, media] of Object.entries((deref(response as Json).content ?? {}) as Record<string, Json>)) bodies.push([`${status} ${type}`, media])
    }
    for (const [where, media] of bodies) {
      if (!media.schema) continue
      const validate = compile(media.schema as Json)
      for (const [name, value] of examplesOf(media)) {
        checked++
        const ok = validate(value)
        t.ok(ok, `${method} ${path} ${where} example "${name}"`, { errors: validate.errors })
      }
    }
  }
  t.ok(checked > 40, `${checked} examples checked`)
})

t.test('schema-level examples match their schemas', async (t) => {
  for (const [name, schema] of Object.entries(spec.components.schemas)) {
    const examples = (schema as Json).examples as unknown[] | undefined
    if (!examples) continue
    const validate = compile(schema as Json)
    for (const example of examples) t.ok(validate(example), `components.schemas.${name}`, { errors: validate.errors })
  }
})
