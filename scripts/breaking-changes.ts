// `npm run breaking-changes`: compares openapi/openapi.yaml with the last released version kept
// in openapi/released/ and fails on a breaking change unless info.version's major number went up.
// Releasing a version: copy openapi/openapi.yaml to openapi/released/openapi-<info.version>.yaml.
import { fileURLToPath } from 'node:url'
import { judge, lastReleased, readYaml } from './spec-compat.ts'

const at = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))

const released = lastReleased(at('openapi/released'))
const verdict = judge(released.document, readYaml(at('openapi/openapi.yaml')))
console.log(`compared with ${released.file.slice(at('').length)}`)
for (const line of verdict.lines) (verdict.ok ? console.log : console.error)(line)
process.exit(verdict.ok ? 0 : 1)
