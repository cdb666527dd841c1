// Request validation with ajv's JSON Schema 2020-12 dialect, the one OpenAPI 3.1 uses.
// Bodies are validated as sent (no type coercion: "5" is not 5 in JSON); path, query and header
// values are strings on the wire, so they are coerced to the types the spec declares.
// Unknown properties are refused, never silently removed (removeAdditional: false).
// Multipart bodies are not validated here: they are streams the handler reads part by part
// (src/http/upload.ts), after the caller's rights were checked, never objects parsed up front.
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
  return ({ schema, httpPart, contentType }) => {
    if (httpPart === 'body' && contentType === 'multipart/form-data') return () => true
    return (httpPart === 'body' ? bodies : parameters).compile(schema as object)
  }
}
