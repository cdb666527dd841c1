// openapi-typescript as `npm run gen` and `npm run sdk:check` run it. Binary bodies (`format:
// binary`: the thumbnail upload's `file`, the bytes of `getImage`) are typed as `Blob`, the type
// `fetch` sends and receives: openapi-typescript types every string schema as `string` and has no
// option for binary; its Node API's `transform` is the documented way to map a format to a type.
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'
import ts from 'typescript'

const BLOB = ts.factory.createTypeReferenceNode('Blob')
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull())

/** The TypeScript types of the OpenAPI document at `spec`, as a module's source text. */
export async function specTypes(spec: URL): Promise<string> {
  const ast = await openapiTS(spec, {
    alphabetize: true,
    transform(schema) {
      if (schema.format !== 'binary') return undefined
      const nullable = Array.isArray(schema.type) && schema.type.includes('null')
      return nullable ? ts.factory.createUnionTypeNode([BLOB, NULL]) : BLOB
    },
  })
  return COMMENT_HEADER + astToString(ast)
}
