// orval with its fetch client, in one file; its functions call the server's address built in.
// orval logs a failed generation and goes on unless told to throw, and counts its warnings.
import { join } from 'node:path'
import { generate } from 'orval'
import type { Generator } from './generator.ts'

export const orval: Generator = {
  name: 'orval (fetch)',
  key: 'orval',
  async generate(spec, dir, serverUrl) {
    const config = {
      input: { target: spec },
      output: { target: join(dir, 'api.ts'), client: 'fetch' as const, baseUrl: serverUrl },
    }
    await generate(config, undefined, { throwOnError: true, failOnWarnings: true })
  },
  module: 'api.ts',
  ownNames: /^HTTPStatusCode(s|[1-5]xx)$/,
  // The function, its URL builder, its query parameters' type, and its answers' types: one per
  // status (and media type, when there are several: getImageResponse200ImageWebp), all of them,
  // the successes, the failures.
  operationNames: (id, Id) =>
    new RegExp(`^(${id}|get${Id}Url|${Id}Params|${id}Response(\\d{3}([A-Z][a-z0-9]*)*|Default|Success|Error)?)$`),
}
