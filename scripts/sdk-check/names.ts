// The names a generated client exports, checked against the spec: none shadows a global of
// JavaScript (a schema `Error` did, in every module importing the SDK's types), every schema keeps
// its own name (a generator renames one that clashes with its own exports), and none is invented
// (orval names an inline schema after its place: `PostPublishedAt`, `CommentParentId`): client
// code that names a type must find it under a name we chose and keep.
import type { OpenApiDocument } from '../../src/spec.ts'
import { listOperations } from '../../src/spec.ts'

const GLOBALS = new Set(Object.getOwnPropertyNames(globalThis))
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

export function nameProblems(exported: string[], spec: OpenApiDocument, ownNames = /^$/): string[] {
  const components = spec.components as Record<string, Record<string, unknown> | undefined>
  const schemas = Object.keys(components.schemas ?? {})
  // Names built from names we chose: component responses and parameters, operationIds.
  const derived = [
    ...Object.keys(components.responses ?? {}).flatMap((name) => [name, `${name}Response`]),
    ...Object.keys(components.parameters ?? {}).flatMap((name) => [name, `${name}Parameter`]),
  ]
  const operationIds = listOperations(spec).map(({ operation }) => operation.operationId)
  const fromOperation = (name: string) => operationIds.some((id) => name.startsWith(id) || name.startsWith(pascal(id)) || name.startsWith(`get${pascal(id)}`))
  return [
    ...exported.filter((name) => GLOBALS.has(name)).map((name) => `exports \`${name}\`, shadowing JavaScript's global \`${name}\``),
    ...schemas.filter((name) => !exported.includes(name)).map((name) => `schema ${name} is not exported under its own name`),
    ...exported
      .filter((name) => !schemas.includes(name) && !derived.includes(name) && !fromOperation(name) && !ownNames.test(name))
      .map((name) => `exports \`${name}\`, a name the spec does not give (name the schema it stands for)`),
  ]
}
