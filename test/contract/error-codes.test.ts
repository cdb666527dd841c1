// The error codes the contract lists are the ones the service sends: client teams write a branch
// for each, and one for an answer that never comes is wasted or, worse, hides a real one. A code
// kept in the enum only for compatibility must say "never sent" in the enum's description.
import { readdirSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { build } from '../helpers/build.ts'

const SRC = fileURLToPath(new URL('../../src/', import.meta.url))

/** The service's own source: every .ts file under src/ except the generated ones. */
function serviceSource(dir = SRC): string {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !(entry.isDirectory() && entry.name === 'generated'))
    .map((entry) =>
      entry.isDirectory()
        ? serviceSource(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? readFileSync(join(dir, entry.name), 'utf8')
          : '',
    )
    .join('\n')
}

t.test('every listed error code is sent by the service, or documented as never sent', async (t) => {
  const { enum: codes, description } = loadSpec().components.schemas.ErrorCode as {
    enum: string[]
    description: string
  }
  const source = serviceSource()
  for (const code of codes) {
    const sent = source.includes(`'${code}'`)
    const neverSent = new RegExp(`\`${code}\` \\(\\d{3}\\): never sent`).test(description)
    t.ok(sent !== neverSent, `${code}: ${sent ? 'sent' : 'not sent'}${neverSent ? ', documented as never sent' : ''}`)
  }
})

t.test('Accept is disregarded (RFC 9110 §12.5.1): answers keep their documented type, never 406', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const fetch = app.contractFetch()
  for (const [path, accept] of [
    ['/ping', 'text/html'],
    ['/categories', 'image/png'],
    ['/me', 'application/xml'],
  ]) {
    const response = await fetch(`${base}${path}`, { headers: { accept: accept! } })
    t.not(response.status, 406, `${path} with Accept: ${accept}`)
    t.match(response.headers.get('content-type'), /^application\/json/, `${path}: JSON all the same`)
    await response.arrayBuffer()
  }
})
