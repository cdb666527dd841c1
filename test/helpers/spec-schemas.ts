// The spec's schemas as ajv validators (JSON Schema 2020-12, strict, formats), shared by the
// contract tests and the response checker so both read the document the same way.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { loadSpec, type OpenApiDocument } from '../../src/spec.ts'
import { addTextKeyword } from '../../src/http/body/validation.ts'

export type Json = Record<string, unknown>

export interface SpecSchemas {
  spec: OpenApiDocument
  /** Follows a `#/components/...` reference (one level; the spec never chains them). */
  deref(node: Json): Json
  /** A validator for a schema from the document, its internal references resolved. */
  compile(schema: Json): ValidateFunction
}

// Schemas reference each other as `#/components/schemas/X`; registered once as `spec#/$defs/X`.
const pointAtDefs = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"spec#/$defs/'))

export function specSchemas(spec: OpenApiDocument = loadSpec()): SpecSchemas {
  const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ['xml', 'externalDocs'] })
  addFormats.default(ajv)
  addTextKeyword(ajv)
  ajv.addSchema({ $id: 'spec', $defs: pointAtDefs(spec.components.schemas) })
  const compiled = new Map<string, ValidateFunction>()
  return {
    spec,
    deref(node) {
      const ref = node.$ref as string | undefined
      if (!ref) return node
      return ref
        .slice(2)
        .split('/')
        .reduce<Json>((at, key) => at[key] as Json, spec as unknown as Json)
    },
    compile(schema) {
      const key = JSON.stringify(schema)
      let validate = compiled.get(key)
      if (!validate) compiled.set(key, (validate = ajv.compile(pointAtDefs(schema))))
      return validate
    },
  }
}
