// The house stays one a newcomer can find their way in: no folder of src/ holds more than 15
// files (group them by resource or concern), no file more than 300 lines, no function more than
// 120 (a factory is composed of parts that each read in one screen). Generated code aside.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SRC = join(ROOT, 'src')
const MAX_FILES_PER_FOLDER = 15
const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 120

const folders = (directory: string): string[] => [
  directory,
  ...readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && join(directory, entry.name) !== join(SRC, 'generated'))
    .flatMap((entry) => folders(join(directory, entry.name))),
]
const filesIn = (directory: string) =>
  readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(directory, entry.name))
const sources = folders(SRC)
  .flatMap(filesIn)
  .filter((file) => /\.(ts|mts|mjs)$/.test(file))

const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** Each function of `file` (declarations, expressions, arrows, methods) with its length in lines. */
function functionsOf(file: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: { name: string; lines: number }[] = []
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const parent = node.parent
      const name =
        (node.name?.getText() ??
          (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name.getText() : undefined)) ||
        '(anonymous)'
      found.push({ name, lines: lineOf(node.end) - lineOf(node.getStart()) + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

t.test('no folder of src/ holds more than 15 files', async (t) => {
  const crowded = folders(SRC)
    .map((folder) => ({ folder: relative(ROOT, folder), files: filesIn(folder).length }))
    .filter(({ files }) => files > MAX_FILES_PER_FOLDER)
  t.same(crowded, [], 'group the files by resource or concern')
})

t.test('no source file is longer than 300 lines', async (t) => {
  const long = sources
    .map((file) => ({ file: relative(ROOT, file), lines: linesOf(readFileSync(file, 'utf8')) }))
    .filter(({ lines }) => lines > MAX_FILE_LINES)
  t.same(long, [], 'split it by subject')
})

t.test('no function is longer than 120 lines', async (t) => {
  const long = sources.flatMap((file) =>
    functionsOf(file)
      .filter(({ lines }) => lines > MAX_FUNCTION_LINES)
      .map(({ name, lines }) => `${relative(ROOT, file)}: ${name}, ${lines} lines`),
  )
  t.same(long, [], 'compose it of parts that each read in one screen')
})

t.test('the measures see what they measure', async (t) => {
  t.ok(sources.length > 100, `${sources.length} source files`)
  t.ok(
    sources.every((file) => !file.startsWith(join(SRC, 'generated'))),
    'generated code is left out',
  )
  const measured = functionsOf(join(SRC, 'app.ts'))
  t.ok(
    measured.some(({ name, lines }) => name === 'buildApp' && lines > 20),
    'a function of many lines is measured as such',
  )
})
