// openapi-typescript (types, with the Blob transform `npm run gen` uses) and openapi-fetch.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { specTypes } from '../openapi-types.ts'
import type { Generator } from './generator.ts'

export const openapiTypescript: Generator = {
  name: 'openapi-typescript + openapi-fetch',
  key: 'openapi-fetch',
  async generate(spec, dir) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'api.ts'), await specTypes(pathToFileURL(spec)))
  },
  module: null,
}
