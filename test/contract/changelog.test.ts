// CHANGELOG.md keeps up with the released contracts: every version in openapi/released/ has an
// entry, and the entry quotes what the breaking-change check says about it against the version
// before, so the changelog cannot call a release additive that the check found breaking.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { judge, parseVersion, readYaml } from '../../scripts/spec-compat.ts'

const changelog = readFileSync('CHANGELOG.md', 'utf8')
const released = readdirSync('openapi/released')
  .map((name) => /^openapi-(.+)\.yaml$/.exec(name)?.[1])
  .filter((version) => version !== undefined)
  .sort((a, b) => {
    const [x, y] = [parseVersion(a), parseVersion(b)]
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]
  })

/** The text of one version's entry: from its heading to the next one. */
function entryOf(version: string): string | undefined {
  const start = changelog.indexOf(`\n## [${version}] - `)
  if (start < 0) return undefined
  const next = changelog.indexOf('\n## [', start + 1)
  return changelog.slice(start, next < 0 ? undefined : next)
}

t.ok(released.length > 0, 'released versions found')
released.forEach((version, index) => {
  t.test(`${version} has an entry that agrees with the breaking-change check`, async (t) => {
    const entry = entryOf(version)
    t.ok(entry, `a "## [${version}] - YYYY-MM-DD" heading`)
    t.match(
      entry ?? '',
      new RegExp(`^\\n## \\[${version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}\\n`),
      'dated',
    )
    t.match(changelog, `\n[${version}]: openapi/released/openapi-${version}.yaml`, 'linked to its document')
    if (index === 0) return
    const verdict = judge(
      readYaml(`openapi/released/openapi-${released[index - 1]}.yaml`),
      readYaml(`openapi/released/openapi-${version}.yaml`),
    )
    t.ok(entry?.includes(`Breaking-change check: \`${verdict.lines[0]}\``), `quotes: ${verdict.lines[0]}`)
    for (const change of verdict.breaking) t.ok(entry?.includes(change), `lists the breaking change ${change}`)
  })
})
