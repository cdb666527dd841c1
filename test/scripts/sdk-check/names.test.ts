// The SDK check's naming rules (scripts/sdk-check/names.ts): the globals a browser client sees,
// and the names each generator may derive from an operation, and no others.
import t from 'tap'
import ts from 'typescript'
import { listOperations, loadSpec } from '../../../src/spec.ts'
import { heyApi } from '../../../scripts/sdk-check/hey-api.ts'
import { globalNames, nameProblems } from '../../../scripts/sdk-check/names.ts'
import { orval } from '../../../scripts/sdk-check/orval.ts'

const spec = loadSpec()
const schemas = Object.keys(spec.components.schemas)
// Any file will do: the libraries come with it.
const globals = (lib: string[]) =>
  globalNames(ts.createProgram(['scripts/sdk-check/generator.ts'], { lib, types: [], noEmit: true }))

t.test('the globals are those of the libraries compiled with: the DOM brings Comment and Text', async (t) => {
  const withDom = globals(['lib.es2023.d.ts', 'lib.dom.d.ts'])
  for (const name of ['Comment', 'Text', 'Node', 'Error', 'Record']) t.ok(withDom.has(name), name)
  t.notOk(globals(['lib.es2023.d.ts']).has('Comment'), 'no Comment without the DOM')
})

t.test('a schema named like a global is refused', async (t) => {
  const [name] = schemas as [string]
  t.same(nameProblems(schemas, spec, orval, new Set([name])), [`exports \`${name}\`, shadowing the global \`${name}\``])
})

t.test(
  "each generator's names for an operation pass, names it invents for an inline schema of one do not",
  async (t) => {
    const [id, Id] = ['listPosts', 'ListPosts']
    t.ok(
      listOperations(spec).some(({ operation }) => operation.operationId === id),
      `${id} is an operation`,
    )
    const cases = [
      [
        heyApi,
        [id, `${Id}Data`, `${Id}Error`, `${Id}Errors`, `${Id}Response`, `${Id}Responses`],
        [`${Id}Status`, `${Id}Body`, `${id}Status`],
      ],
      [
        orval,
        [
          id,
          `get${Id}Url`,
          `${Id}Params`,
          `${id}Response`,
          `${id}Response200`,
          `${id}ResponseDefault`,
          `${id}ResponseSuccess`,
          `${id}ResponseError`,
          'getImageResponse200ImageWebp',
        ],
        [`${Id}Status`, `${Id}Body`, 'CreatePostBody', `${id}Status`, `${Id}200`],
      ],
    ] as const
    for (const [generator, derived, invented] of cases) {
      t.same(
        nameProblems([...schemas, ...derived], spec, generator, new Set()),
        [],
        `${generator.name}: ${derived.join(', ')}`,
      )
      t.same(
        nameProblems([...schemas, ...invented], spec, generator, new Set()),
        invented.map((name) => `exports \`${name}\`, a name the spec does not give (name the schema it stands for)`),
        `${generator.name} refuses ${invented.join(', ')}`,
      )
    }
  },
)

t.test("hey-api's names for the spec's webhooks pass; one for a webhook the spec does not have does not", async (t) => {
  const derived = [
    'PostPostPublishedWebhookPayload',
    'PostPostPublishedWebhookRequest',
    'PostCommentCreatedWebhookRequest',
    'Webhooks',
  ]
  t.same(nameProblems([...schemas, ...derived], spec, heyApi, new Set()), [], derived.join(', '))
  const invented = ['PostPostCreatedWebhookPayload', 'PostPublishedWebhookPayload']
  t.same(
    nameProblems([...schemas, ...invented], spec, heyApi, new Set()),
    invented.map((name) => `exports \`${name}\`, a name the spec does not give (name the schema it stands for)`),
  )
  t.same(
    nameProblems([...schemas, 'PostPostPublishedWebhookPayload'], spec, orval, new Set()),
    ['exports `PostPostPublishedWebhookPayload`, a name the spec does not give (name the schema it stands for)'],
    'orval derives none',
  )
})
