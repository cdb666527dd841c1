// The names a generated client exports, checked against the spec: none shadows a global that
// client code sees (a schema `Error` did, in every module importing the SDK's types), every schema
// keeps its own name (a generator renames one that clashes with its own exports), and none is
// invented (orval names an inline schema after its place: `PostPublishedAt`, `ListPostsStatus`,
// `CreatePostBody`): client code that names a type must find it under a name we chose and keep.
import ts from 'typescript'
import type { OpenApiDocument } from '../../src/spec.ts'
import { listOperations } from '../../src/spec.ts'
import type { Generator } from './generator.ts'

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

/**
 * Every global that code compiled by `program` sees, as TypeScript declares them for its `lib`
 * and `types`: JavaScript's, the DOM's (`Comment`, `Node`, `Response`) and Node's. The journeys
 * compile with the DOM's, as a browser client does; Node's own `globalThis` has none of them.
 */
export function globalNames(program: ts.Program): Set<string> {
  const lib = program.getSourceFiles().find((file) => program.isSourceFileDefaultLibrary(file))
  if (!lib) throw new Error('no default library in the program: the globals are unknown')
  const meaning = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace
  return new Set(
    program
      .getTypeChecker()
      .getSymbolsInScope(lib, meaning)
      .map((symbol) => symbol.name),
  )
}

export function nameProblems(
  exported: string[],
  spec: OpenApiDocument,
  generator: Pick<Generator, 'ownNames' | 'operationNames' | 'webhookNames'>,
  globals: Set<string>,
): string[] {
  const components = spec.components as Record<string, Record<string, unknown> | undefined>
  const schemas = Object.keys(components.schemas ?? {})
  // Names built from names we chose: component responses and parameters, operationIds.
  const derived = [
    ...Object.keys(components.responses ?? {}).flatMap((name) => [name, `${name}Response`]),
    ...Object.keys(components.parameters ?? {}).flatMap((name) => [name, `${name}Parameter`]),
  ]
  const operationIds = listOperations(spec).map(({ operation }) => operation.operationId)
  const fromOperation = (name: string) =>
    operationIds.some((id) => generator.operationNames?.(id, pascal(id)).test(name))
  // Names built from the webhooks' names (`post.published` → `PostPostPublished…` for its POST).
  const webhooks = ((spec as { webhooks?: Record<string, Record<string, unknown>> }).webhooks ?? {}) as Record<
    string,
    Record<string, unknown>
  >
  const webhookKeys = Object.entries(webhooks).flatMap(([key, item]) =>
    Object.keys(item).map(
      (method) =>
        pascal(method) +
        key
          .split(/[^A-Za-z0-9]+/)
          .map(pascal)
          .join(''),
    ),
  )
  const fromWebhook = (name: string) => webhookKeys.some((Key) => generator.webhookNames?.(Key).test(name))
  const own = (name: string) => generator.ownNames?.test(name) ?? false
  return [
    ...exported
      .filter((name) => globals.has(name))
      .map((name) => `exports \`${name}\`, shadowing the global \`${name}\``),
    ...schemas
      .filter((name) => !exported.includes(name))
      .map((name) => `schema ${name} is not exported under its own name`),
    ...exported
      .filter(
        (name) =>
          !schemas.includes(name) &&
          !derived.includes(name) &&
          !fromOperation(name) &&
          !fromWebhook(name) &&
          !own(name),
      )
      .map((name) => `exports \`${name}\`, a name the spec does not give (name the schema it stands for)`),
  ]
}
