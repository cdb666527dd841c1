// Every property the spec documents for a resource is written by its view, and the compiler says
// so: each view returns `Wire<T>` (src/wire.ts), in which no property is optional. This test edits
// the real source files in memory, one property left out at a time, and type-checks them with the
// project's tsconfig: each edit must fail there, in the edited file. The list SQL of posts is held
// to the same list of keys as the view (POST_KEYS, postColumns).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile)
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT)

let previous: ts.Program | undefined

/** The type errors in `file` once its text is `text` (every other file as it is on disk). */
function typeErrorsIn(file: string, text: string): string[] {
  const path = join(ROOT, file)
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, language, ...rest) =>
    name === path ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest)
  const program = ts.createProgram({ rootNames: [path], options, host, oldProgram: previous })
  previous = program
  return program
    .getSemanticDiagnostics(program.getSourceFile(path))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))
}

/** The object literal a view returns (`const toX = (…) => ({…})`, `toX: (…) => ({…})` or `function toX() { return {…} }`). */
function returnedLiteral(source: ts.SourceFile, name: string): ts.ObjectLiteralExpression {
  let found: ts.ObjectLiteralExpression | undefined
  const literalOf = (body: ts.Node | undefined): ts.ObjectLiteralExpression | undefined => {
    if (body === undefined) return undefined
    if (ts.isParenthesizedExpression(body)) return literalOf(body.expression)
    if (ts.isObjectLiteralExpression(body)) return body
    if (ts.isBlock(body)) {
      const last = body.statements.at(-1)
      return last && ts.isReturnStatement(last) ? literalOf(last.expression) : undefined
    }
    return undefined
  }
  const visit = (node: ts.Node) => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === name) found = literalOf(node.body)
    const named = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)
    if (named && ts.isIdentifier(node.name) && node.name.text === name) {
      const value = node.initializer
      if (value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value))) found = literalOf(value.body)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  if (found === undefined) throw new Error(`no object literal returned by ${name}`)
  return found
}

/** `text` without the property `key` of the literal `literal` (its line, comma included). */
function withoutProperty(text: string, literal: ts.ObjectLiteralExpression, key: string): string {
  const property = literal.properties.find((p) => p.name !== undefined && p.name.getText() === key)
  if (property === undefined) throw new Error(`no property ${key}`)
  const end = text[property.end] === ',' ? property.end + 1 : property.end
  return text.slice(0, property.getFullStart()) + text.slice(end)
}

const sourceOf = (file: string) => {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return { text, source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) }
}

/** The views that write a resource of the spec, and properties to leave out (spec-optional ones among them). */
const VIEWS: { file: string; view: string; leaveOut: string[] }[] = [
  { file: 'src/content/posts/post-view.ts', view: 'toPost', leaveOut: ['html', 'slug'] },
  { file: 'src/content/comments/comments.ts', view: 'toComment', leaveOut: ['body'] },
  { file: 'src/content/categories/categories.ts', view: 'toCategory', leaveOut: ['isDefault'] },
  { file: 'src/webhooks/webhooks.ts', view: 'toWebhook', leaveOut: ['description'] },
  { file: 'src/webhooks/webhooks.ts', view: 'toDelivery', leaveOut: ['error'] },
  { file: 'src/auth/accounts/user-view.ts', view: 'toUser', leaveOut: ['emailVerified'] },
  { file: 'src/auth/sessions/sessions.ts', view: 'toUserSession', leaveOut: ['address'] },
  { file: 'src/auth/sessions/session-tokens.ts', view: 'pair', leaveOut: ['expiresIn'] },
  { file: 'src/auth/api-tokens/api-tokens.ts', view: 'toApiToken', leaveOut: ['lastUsedAt', 'expiresAt'] },
  { file: 'src/content/media/media-view.ts', view: 'toMedia', leaveOut: ['alt', 'ownerId'] },
  { file: 'src/content/revisions/revision-view.ts', view: 'toRevisionSummary', leaveOut: ['editor', 'changed'] },
  { file: 'src/content/revisions/revision-view.ts', view: 'toRevision', leaveOut: ['thumbnail', 'categoryIds'] },
]

t.test('the views type-check as they are', async (t) => {
  for (const file of new Set(VIEWS.map((view) => view.file))) {
    t.same(typeErrorsIn(file, readFileSync(join(ROOT, file), 'utf8')), [], file)
  }
})

for (const { file, view, leaveOut } of VIEWS) {
  t.test(`${view} without a documented property fails the type-check`, async (t) => {
    const { text, source } = sourceOf(file)
    for (const key of leaveOut) {
      const errors = typeErrorsIn(file, withoutProperty(text, returnedLiteral(source, view), key))
      t.match(errors.join('\n'), new RegExp(`'${key}'`), `${view} without ${key}`)
    }
  })
}

t.test('the list SQL of posts writes every property the view writes', async (t) => {
  const view = sourceOf('src/content/posts/post-view.ts')
  const withoutSlugKey = view.text.replace(/^ {2}'slug',\n/m, '')
  t.not(withoutSlugKey, view.text, 'POST_KEYS lists slug')
  t.match(
    typeErrorsIn('src/content/posts/post-view.ts', withoutSlugKey).join('\n'),
    /missing: "slug"/,
    'POST_KEYS without slug',
  )
  const twice = view.text.replace(/^ {2}'slug',\n/m, "  'slug',\n  'id',\n")
  t.match(typeErrorsIn('src/content/posts/post-view.ts', twice).join('\n'), /twice: "id"/, 'POST_KEYS naming id twice')

  const store = sourceOf('src/content/posts/post-list-store.ts')
  const columns = returnedLiteral(store.source, 'postColumns')
  const errors = typeErrorsIn('src/content/posts/post-list-store.ts', withoutProperty(store.text, columns, 'slug'))
  t.match(errors.join('\n'), /'slug'/, 'postColumns without slug')
})
