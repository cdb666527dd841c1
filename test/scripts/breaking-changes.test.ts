// The breaking-change check (scripts/spec-compat.ts), on pairs made from the current contract:
// one per kind of break client teams would feel, a pair that only adds, and a major bump.
import t from 'tap'
import { listOperations, loadSpec } from '../../src/spec.ts'
import { judge, parseVersion } from '../../scripts/spec-compat.ts'

type Spec = ReturnType<typeof loadSpec>
type Schema = { properties: Record<string, Record<string, unknown>>; required: string[]; enum?: string[] }
const schema = (spec: Spec, name: string) => spec.components.schemas[name] as unknown as Schema

const [major, minor] = parseVersion(loadSpec().info.version)
const nextMinor = `${major}.${minor + 1}.0`
const nextMajor = `${major + 1}.0.0`

function removeField(spec: Spec, name: string, field: string) {
  delete schema(spec, name).properties[field]
  schema(spec, name).required = schema(spec, name).required.filter((required) => required !== field)
}

function changed(edit: (spec: Spec) => void, version?: string): Spec {
  const after = structuredClone(loadSpec())
  edit(after)
  if (version) after.info.version = version
  return after
}

const breaks: Record<string, [(spec: Spec) => void, RegExp]> = {
  'removed operation': [(spec) => delete spec.paths['/posts/{id}']!.delete, /remove paths\.\/posts\/\{id\}\.delete/],
  'removed response field': [
    (spec) => removeField(spec, 'Post', 'title'),
    /remove components\.schemas\.Post\.properties\.title/,
  ],
  'longer error message allowed': [
    (spec) => (schema(spec, 'ErrorInfo').properties.message!.maxLength = 5000),
    /replace components\.schemas\.ErrorInfo\.properties\.message\.maxLength/,
  ],
  'new required request field': [
    (spec) => {
      const request = schema(spec, 'CreatePostRequest')
      request.properties.slug = { type: 'string', maxLength: 80 }
      request.required.push('slug')
    },
    /add components\.schemas\.CreatePostRequest\.required/,
  ],
  'narrowed enum': [
    (spec) => (schema(spec, 'PostStatus').enum = ['draft', 'published']),
    /remove components\.schemas\.PostStatus\.enum/,
  ],
  'renamed schema (a generated type name)': [
    (spec) => {
      const schemas = spec.components.schemas as Record<string, unknown>
      schemas.Remark = schemas.PostComment
      delete schemas.PostComment
    },
    /remove components\.schemas\.PostComment/,
  ],
  'renamed operation (a generated function name)': [
    (spec) => (spec.paths['/posts']!.get!.operationId = 'listAllPosts'),
    /replace paths\.\/posts\.get\.operationId \(listPosts → listAllPosts\)/,
  ],
  'renamed path parameter (a path key of openapi-fetch, an argument of hey-api and orval)': [
    (spec) => {
      const paths = spec.paths as Record<string, unknown>
      for (const path of Object.keys(paths).filter((path) => path.startsWith('/posts/{id}'))) {
        paths[path.replace('{id}', '{postId}')] = paths[path]
        delete paths[path]
      }
      ;(spec.components.parameters as Record<string, { name: string }>).PostId!.name = 'postId'
    },
    /replace paths\.\/posts\/\{id\} \(→ \/posts\/\{postId\}/,
  ],
  'renamed component parameter (a generated type name)': [
    (spec) => {
      const parameters = spec.components.parameters as Record<string, unknown>
      parameters.PostIdentifier = parameters.PostId
      delete parameters.PostId
      for (const { operation } of listOperations(spec)) {
        for (const parameter of (operation.parameters ?? []) as { $ref?: string }[]) {
          if (parameter.$ref === '#/components/parameters/PostId')
            parameter.$ref = '#/components/parameters/PostIdentifier'
        }
      }
    },
    /remove components\.parameters\.PostId \(a generated type name\)/,
  ],
  'changed type': [
    (spec) => (schema(spec, 'PostComment').properties.body!.type = 'integer'),
    /replace components\.schemas\.PostComment\.properties\.body\.type/,
  ],
}

for (const [kind, [edit, expected]] of Object.entries(breaks)) {
  t.test(`${kind}: fails without a major bump, passes with one`, async (t) => {
    const verdict = judge(loadSpec(), changed(edit, nextMinor))
    t.notOk(verdict.ok, verdict.lines[0] ?? '')
    t.ok(
      verdict.breaking.some((change) => expected.test(change)),
      `reports ${expected}`,
      { breaking: verdict.breaking.slice(0, 5) },
    )
    t.ok(judge(loadSpec(), changed(edit, nextMajor)).ok, `allowed at ${nextMajor}`)
  })
}

t.test('additions break nothing: a new operation, an optional request field, a new response field', async (t) => {
  const verdict = judge(
    loadSpec(),
    changed((spec) => {
      spec.paths['/posts/{id}/related'] = {
        get: { ...spec.paths['/posts/{id}']!.get!, operationId: 'listRelatedPosts' },
      }
      schema(spec, 'CreatePostRequest').properties.subtitle = { type: 'string', maxLength: 200 }
      schema(spec, 'Post').properties.readingMinutes = { type: 'integer', format: 'int32', minimum: 0, maximum: 1000 }
    }, nextMinor),
  )
  t.ok(verdict.ok, verdict.lines.join('\n'))
  t.same(verdict.breaking, [])
})

t.test('rewording breaks nothing: descriptions and summaries of responses and operations', async (t) => {
  const verdict = judge(
    loadSpec(),
    changed((spec) => {
      const responses = spec.components.responses as Record<string, { description: string }>
      for (const response of Object.values(responses)) response.description = `${response.description} Reworded.`
      spec.paths['/posts']!.get!.summary = 'Reworded summary'
    }, nextMinor),
  )
  t.ok(verdict.ok, verdict.lines.join('\n'))
  t.same(verdict.breaking, [])
})

// The contract before its schemas had names: each named one written out where it is used.
function unnamed(spec: Spec) {
  const { schemas } = spec.components
  const inline = (owner: string, property: string) => {
    const { $ref, ...beside } = schema(spec, owner).properties[property]!
    schema(spec, owner).properties[property] = { ...schemas[String($ref).split('/').pop()!], ...beside }
  }
  inline('PostComment', 'parentId')
  inline('ThumbnailSize', 'contentType')
  inline('Post', 'thumbnail')
  delete schema(spec, 'ThumbnailUploadRequest').properties.file!.format
}

t.test(
  'naming breaks nothing on the wire: schemas moved into components of their own, format: binary added',
  async (t) => {
    const verdict = judge(changed(unnamed), loadSpec())
    t.ok(verdict.ok, verdict.lines.join('\n'))
    t.same(verdict.breaking, [])
  },
)

t.test('a renamed schema is breaking, though the wire is the same: it renames a generated type', async (t) => {
  const before = changed((spec) => {
    const { schemas } = spec.components
    schemas.Error = schemas.ErrorInfo!
    delete schemas.ErrorInfo
    schema(spec, 'ErrorEnvelope').properties.error = { $ref: '#/components/schemas/Error' }
  })
  const verdict = judge(
    before,
    changed(() => {}, nextMinor),
  )
  t.notOk(verdict.ok)
  t.same(
    verdict.breaking,
    ['remove components.schemas.Error (a generated type name)'],
    'reported once, by name, not at every response',
  )
})

t.test(
  'a change to a shared schema is reported where it is defined, not again at each operation using it',
  async (t) => {
    const verdict = judge(
      loadSpec(),
      changed((spec) => (spec.components.schemas.ErrorCode as { enum: string[] }).enum.pop(), nextMinor),
    )
    t.same(verdict.breaking, [
      `remove components.schemas.ErrorCode.enum.${(loadSpec().components.schemas.ErrorCode as { enum: string[] }).enum.length - 1}`,
    ])
  },
)

t.test(
  'error answers are judged as responses: a field removed from the envelope is breaking, listed once where it is defined',
  async (t) => {
    for (const [name, field] of [
      ['ErrorInfo', 'code'],
      ['ErrorInfo', 'message'],
      ['ErrorInfo', 'details'],
      ['ErrorDetail', 'message'],
    ] as const) {
      const verdict = judge(
        loadSpec(),
        changed((spec) => removeField(spec, name, field), nextMinor),
      )
      t.notOk(verdict.ok, `${name}.${field}: ${verdict.lines[0]}`)
      t.same(
        verdict.breaking.map((change) => change.replace(/\.\d+$/, '')),
        [`remove components.schemas.${name}.required`, `remove components.schemas.${name}.properties.${field}`],
      )
    }
  },
)

t.test(
  'a value added to an enum that responses carry is not breaking, for the error codes as for any other enum',
  async (t) => {
    for (const name of ['ErrorCode', 'PostStatus']) {
      const verdict = judge(
        loadSpec(),
        changed((spec) => schema(spec, name).enum!.push('NEW_VALUE'), nextMinor),
      )
      t.ok(verdict.ok, `${name}: ${verdict.lines.join('\n')}`)
    }
  },
)

t.test('a recursive schema gets a verdict, and a change inside it is reported where it is defined', async (t) => {
  const recursive = (spec: Spec) =>
    (schema(spec, 'Category').properties.children = { type: 'array', items: { $ref: '#/components/schemas/Category' } })
  t.ok(judge(loadSpec(), changed(recursive, nextMinor)).ok, 'an optional recursive field added breaks nothing')
  const verdict = judge(
    changed(recursive),
    changed((spec) => {
      recursive(spec)
      schema(spec, 'Category').properties.name!.type = 'integer'
    }, nextMinor),
  )
  t.same(verdict.breaking, ['replace components.schemas.Category.properties.name.type'])
})

t.test('a version that is not semantic is refused', async (t) => {
  t.throws(
    () =>
      judge(
        loadSpec(),
        changed(() => {}, 'v2'),
      ),
    /not a semantic version/,
  )
})
