// The README is the entry and docs/ the manual: every npm script and every setting of .env.example
// must be findable in one of them, the README must stay one short page (under 150 lines, none over
// 200 characters), and every relative link in them must lead to a file that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

const README = 'README.md'
const pages = [
  README,
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]
const text = pages.map(read).join('\n')

/** Whether `phrase` occurs in the README or docs/ as a whole word (not inside a longer name). */
const mentioned = (phrase: string) =>
  new RegExp(`(?<![\\w:-])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w:-])`).test(text)

t.test('every npm script is mentioned in the README or docs/', async (t) => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts)
  t.ok(scripts.length > 0, 'package.json has scripts')
  for (const name of scripts) {
    // npm's lifecycle hooks run by themselves: named as they are. `test` and `start` have npm's
    // shorthands; any other script is run as `npm run <name>`.
    const lifecycle = /^(pre|post)/.test(name) && scripts.includes(name.replace(/^(pre|post)/, ''))
    const ways = lifecycle
      ? [name]
      : name === 'test' || name === 'start'
        ? [`npm ${name}`, `npm run ${name}`]
        : [`npm run ${name}`]
    t.ok(ways.some(mentioned), `${ways[0]}`)
  }
})

t.test('every setting of .env.example is mentioned in the README or docs/', async (t) => {
  // Settings are lines `NAME=value`, or `# NAME=value` for those unset by default.
  const settings = [...read('.env.example').matchAll(/^(?:#\s*)?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!)
  t.ok(settings.length > 40, `.env.example lists its settings (${settings.length} found)`)
  for (const name of settings) t.ok(mentioned(name), name)
})

t.test('the README is one short page', async (t) => {
  const lines = read(README).split('\n')
  if (lines.at(-1) === '') lines.pop()
  t.ok(lines.length < 150, `under 150 lines (${lines.length})`)
  const long = lines.map((line, index) => ({ line: index + 1, length: line.length })).filter((l) => l.length > 200)
  t.same(long, [], 'no line over 200 characters')
})

t.test('every relative link in the README and docs/ leads to a file that exists', async (t) => {
  for (const page of pages) {
    // Inline links `[text](target)`, fenced code aside (its brackets are not links).
    const prose = read(page).replace(/^```[\s\S]*?^```/gm, '')
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('#')) continue
      const path = join(dirname(join(ROOT, page)), decodeURIComponent(target!.split('#')[0]!))
      t.ok(existsSync(path), `${page} → ${target} (${relative(ROOT, path)})`)
    }
  }
})
