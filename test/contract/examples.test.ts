// The spec's own examples validate against their schemas, so client teams copying an example
// get a value the service accepts (requests) or really sends (responses).
import t from 'tap'
import { listOperations } from '../../src/spec.ts'
import { specSchemas, type Json } from '../helpers/spec-schemas.ts'

const { spec, deref, compile } = specSchemas()

function examplesOf(media: Json): [string, unknown][] {
  const examples = (media.examples ?? {}) as Record<string, Json>
  return Object.entries(examples).map(([name, example]) => [name, deref(example).value])
}

t.test('every request and response example matches its schema', async (t) => {
  let checked = 0
  for (const { method, path, operation } of listOperations()) {
    const bodies: [string, Json][] = []
    const requestBody = operation.requestBody ? deref(operation.requestBody as Json) : undefined
    for (const [type, media] of Object.entries((requestBody?.content ?? {}) as Record<string, Json>))
      bodies.push([`request ${type}`, media])
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [type, media] of Object.entries((deref(response as Json).content ?? {}) as Record<string, Json>))
        bodies.push([`${status} ${type}`, media])
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
