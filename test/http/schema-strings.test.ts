// Each string of the spec is held once however many routes use it (src/http/routes.ts,
// internStrings): fastify-openapi-glue clones every route's schema, and without the interning the
// process held ErrorCode's description (5.7 KB, in every error answer) once per route using it
// (492 copies; 5 with it). Counted in a heap snapshot of this process with one app built.
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { build } from '../helpers/build.ts'
import { stringsOnHeap } from '../helpers/heap-snapshot.ts'

t.test("ErrorCode's description is held a few times, not once per route", async (t) => {
  const spec = loadSpec() as unknown as { components: { schemas: { ErrorCode: { description: string } } } }
  const description = spec.components.schemas.ErrorCode.description
  t.ok(description.length > 5000, 'a long string, so that each copy counts')
  const app = await build(t)
  t.ok(app.printRoutes().split('\n').length > 50, 'the app has its routes')
  const copies = stringsOnHeap(description.slice(0, 500))
  t.ok(copies > 0, `${copies} copies: the snapshot sees them`)
  t.ok(copies <= 10, `${copies} copies: one per routine that read the spec, not one per route`)
})
