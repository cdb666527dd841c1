// orval with its fetch client, in one file; its functions call the server's address built in.
// orval logs a failed generation and goes on unless told to throw, and counts its warnings.
import { join } from 'node:path'
import { generate } from 'orval'
import type { Generator } from './generator.ts'

export const orval: Generator = {
  name: 'orval (fetch)',
  key: 'orval',
  async generate(spec, dir, serverUrl) {
    const config = { input: { target: spec }, output: { target: join(dir, 'api.ts'), client: 'fetch' as const, baseUrl: serverUrl } }
    await generate(config, undefined, { throwOnError: true, failOnWarnings: true })
  },
  module: 'api.ts',
  ownNames: /^HTTPStatusCode(s|[1-5]xx)$/,
}
