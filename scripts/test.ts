// `npm test`: with no arguments, the whole suite (tap runs the files package.json's `tap.include`
// names) and then the coverage floors (scripts/coverage.ts), as CI runs it.
// `npm test -- <path>...`: only those files, a folder standing for every `*.test.ts` file under it
// (tap itself takes files and quoted globs, and finds no test in a folder named as such), without
// coverage, which a part of the suite would take under its floors. Arguments that start with `-` go
// to tap as they are: give an option its value after `=` (`--grep=<pattern>`). `--list` prints the
// files instead of running them.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
// `--list`: print the files the paths stand for, one a line, and run nothing.
const listOnly = args.includes('--list')
const options = args.filter((arg) => arg.startsWith('-') && arg !== '--list')
// npm runs scripts at the project's root; a path is read from where `npm test` was typed.
const from = process.env.INIT_CWD ?? process.cwd()

function run(command: string, commandArgs: string[]): number {
  const child = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' })
  // Not found: run it through npm, which puts node_modules/.bin first on the PATH.
  if (child.error) throw child.error
  return child.status ?? 1
}

/** The test files a path stands for: a file itself, a folder every `*.test.ts` file under it. */
function testFiles(arg: string): string[] {
  const path = resolve(from, arg)
  if (!existsSync(path)) {
    console.error(`npm test: ${arg}: no such file or folder`)
    process.exit(2)
  }
  const files = statSync(path).isDirectory()
    ? readdirSync(path, { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.test.ts') && !name.split(/[\\/]/).includes('node_modules'))
        .map((name) => join(path, name))
    : [path]
  if (files.length === 0) {
    console.error(`npm test: ${arg}: no *.test.ts file in this folder`)
    process.exit(2)
  }
  return files.map((file) => relative(root, file).split('\\').join('/')).sort()
}

if (args.length === 0) {
  const status = run('tap', [])
  process.exit(status === 0 ? run('tsx', ['scripts/coverage.ts']) : status)
}
const files = [...new Set(args.filter((arg) => !arg.startsWith('-')).flatMap(testFiles))]
if (listOnly) {
  for (const file of files) console.log(file)
  process.exit(0)
}
process.exit(run('tap', [...(files.length > 0 ? ['--disable-coverage'] : []), ...options, ...files]))
