// Request validation with ajv's JSON Schema 2020-12 dialect, the one OpenAPI 3.1 uses.
// Bodies are validated as sent (no type coercion: "5" is not 5 in JSON); path, query and header
// values are strings on the wire, so they are coerced to the types the spec declares.
// Unknown properties are refused, never silently removed (removeAdditional: false).
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    // Fastify adds its own keys to route schemas; OpenAPI adds `xml` and `externalDocs`.
    keywords: ['xml', 'externalDocs'],
  })
  addFormats.default(ajv)
  return ajv
}

export function makeValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodies = makeAjv(false)
  const parameters = makeAjv('array')
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodies : parameters).compile(schema as object)
}
