// openapi-zod-client: a Zodios client whose zod schemas check every request and answer at run
// time. Its output imports its runtime, @zodios/core and zod 3, which a client team installs
// beside it; here they are the ones openapi-zod-client itself depends on, linked into the folder
// the output and its journey sit in (the project's own zod is 4). `default` answers are added as
// errors (`defaultStatusBehavior`): without it the generator warns of every operation, as ours
// all have one, the 5xx envelope.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { generateZodClientFromOpenAPI } from 'openapi-zod-client'
import { parse } from 'yaml'
import type { Generator } from './generator.ts'

const fromGenerator = createRequire(createRequire(import.meta.url).resolve('openapi-zod-client'))
const runtime = ['@zodios/core', 'zod'].map((name) => ({
  name,
  dir: dirname(fromGenerator.resolve(`${name}/package.json`)),
}))

export const openapiZodClient: Generator = {
  name: 'openapi-zod-client (Zodios)',
  key: 'openapi-zod-client',
  async generate(spec, dir) {
    mkdirSync(dir, { recursive: true })
    await generateZodClientFromOpenAPI({
      openApiDoc: parse(readFileSync(spec, 'utf8')),
      distPath: join(dir, 'api.ts'),
      options: { withAlias: true, defaultStatusBehavior: 'auto-correct' },
    })
    // Resolved from the client's folder and the journey's, its parent, by the compiler and Node alike.
    for (const { name, dir: target } of runtime) {
      const link = join(dir, '..', 'node_modules', name)
      mkdirSync(dirname(link), { recursive: true })
      symlinkSync(target, link, 'dir')
    }
  },
  // Its schemas are members of one exported object (`schemas`): no name of ours becomes its own export.
  module: null,
}
