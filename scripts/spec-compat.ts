// Whether a new version of the contract keeps the promises of the last released one. The diff
// and its breaking/non-breaking classification come from api-smart-diff, which judges each change
// by where it is (a removed enum value breaks a request, not a response). It is given the contract
// as the wire sees it (resolvedContract below), and its classification is used as is but for one
// rule of our contract: a value added to a response enum is not breaking. Breaks it cannot see
// there are added, for they rename the types, functions and arguments of every generated client:
// a schema or parameter removed from `components` (renamed, or moved inline), a changed
// operationId, a renamed path parameter. The version rule on top is ours: a breaking change needs
// a higher major version.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { apiCompare } from 'api-smart-diff'
import { parse } from 'yaml'

type Document = { info: { version: string } }
type Operations = Record<string, Record<string, { operationId?: string } | undefined> | undefined>

export interface Verdict {
  ok: boolean
  breaking: string[]
  lines: string[]
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/

export function parseVersion(version: string): [number, number, number] {
  const match = SEMVER.exec(version)
  if (!match) throw new Error(`info.version "${version}" is not a semantic version`)
  return [Number(match[1]), Number(match[2]), Number(match[3])]
}

/**
 * Prose and samples: no generated client reads them. api-smart-diff calls a replaced response
 * `description` breaking (the field is required there), which would make every reworded
 * response a major version.
 */
const ANNOTATIONS = new Set(['description', 'summary', 'title', 'example', 'examples'])
/** Maps whose keys are names chosen by us (a property called `title`), not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'encoding', '$defs'])

type Node = unknown
type Json = Record<string, Node>

const COMPONENT_REF = '#/components/'

/** The node a local `$ref` (`#/components/…`) points at. */
const target = (document: object, ref: string): Node =>
  ref
    .slice(2)
    .split('/')
    .reduce<Node>((at, key) => (at as Json | undefined)?.[key], document)

/**
 * The contract as api-smart-diff should read it: every `$ref` to a component (a schema, a
 * response, a parameter, a header) replaced by what it names (keywords beside a `$ref`, allowed
 * by OpenAPI 3.1, laid over it), in the paths and in the components alike; prose and samples left
 * out, and `format: binary` too (it tells generators "bytes" and constrains nothing: ajv-formats
 * accepts any value). api-smart-diff judges a body as a response only where it sits under
 * `paths.<path>.<method>.responses`: the body of a response it reaches through a `$ref` to
 * `components/responses` (every error answer here) it judges as a request's, where a removed field
 * breaks nothing. Read as written, it also reports an inline schema moved into a component of its
 * own as constraints removed (when a description stands beside the new `$ref`, or the `$ref` sits
 * in a component another one uses). A `$ref` back into a schema being inlined (a recursive schema)
 * is left for api-smart-diff, which follows cycles.
 */
export function resolvedContract(document: object): object {
  const inline = (node: Node, within: string, refs: string[]): Node => {
    if (Array.isArray(node)) return node.map((item) => inline(item, within, refs))
    if (node === null || typeof node !== 'object') return node
    const { $ref, ...rest } = node as Json
    const kept = Object.entries(rest).filter(
      ([key, value]) => NAME_MAPS.has(within) || !(ANNOTATIONS.has(key) || (key === 'format' && value === 'binary')),
    )
    const own = Object.fromEntries(kept.map(([key, value]) => [key, inline(value, key, refs)]))
    if (typeof $ref !== 'string' || !$ref.startsWith(COMPONENT_REF))
      return typeof $ref === 'string' ? { $ref, ...own } : own
    if (refs.includes($ref)) return { $ref, ...own }
    return { ...(inline(target(document, $ref), within, [...refs, $ref]) as Json), ...own }
  }
  return inline(document, '', []) as object
}

/**
 * Every breaking change, as "action path". On the wire, a whole schema or parameter added to or
 * removed from `components` is compared where it is used; its name is compared on its own.
 */
export function breakingChanges(before: object, after: object): string[] {
  const [was, is] = [resolvedContract(before), resolvedContract(after)]
  leaveOutUnchangedResponses(was, is)
  const { diffs } = apiCompare(was, is)
  const wholeNamed = (path: unknown[]) =>
    path.length === 3 && path[0] === 'components' && NAMED_KINDS.includes(path[1] as string)
  return [
    ...diffs
      .filter((diff) => diff.type === 'breaking' && !wholeNamed(diff.path) && !addedResponseEnumValue(diff))
      .map((diff) => `${diff.action} ${diff.path.join('.')}`),
    ...removedComponents(before, after),
    ...renamedOperations(before, after),
    ...renamedPathParameters(before, after),
  ]
}

/**
 * Responses the same in both versions, taken out of both: what did not change breaks nothing, and
 * the error answers written out at every operation (resolvedContract) are most of the document,
 * which api-smart-diff takes seconds to walk.
 */
function leaveOutUnchangedResponses(before: object, after: object): void {
  type Paths = Record<string, Record<string, { responses?: Json } | undefined>>
  const [was, is] = [before, after].map((spec) => ((spec as { paths?: Paths }).paths ?? {}) as Paths)
  for (const [path, methods] of Object.entries(was!)) {
    for (const [method, operation] of Object.entries(methods)) {
      const [responses, other] = [operation?.responses ?? {}, is![path]?.[method]?.responses ?? {}]
      for (const status of Object.keys(responses).filter((status) =>
        isDeepStrictEqual(responses[status], other[status]),
      )) {
        delete responses[status]
        delete other[status]
      }
    }
  }
}

/**
 * A value added to an enum that a response carries. api-smart-diff calls it breaking (a client
 * may meet a value it does not know); the contract makes it a minor change (info.description,
 * "Versioning"), for every enum alike: `ErrorCode` has always grown in minor versions, and clients
 * handle a value they do not know.
 */
function addedResponseEnumValue({ action, path }: { action: string; path: unknown[] }): boolean {
  return action === 'add' && path[0] === 'paths' && path[3] === 'responses' && path.at(-2) === 'enum'
}

/** Kinds of component whose names generated clients export: a schema is a type in all of them,
 *  a parameter one in hey-api (`PostId`) and orval (`LimitParameter`). */
const NAMED_KINDS = ['schemas', 'parameters']

/** Components of those kinds gone by name (renamed, or moved inline). */
function removedComponents(before: object, after: object): string[] {
  return NAMED_KINDS.flatMap((kind) => {
    const [was, is] = [before, after].map(
      (spec) => (((spec as Json).components as Json | undefined)?.[kind] ?? {}) as Json,
    )
    return Object.keys(was!)
      .filter((name) => !(name in is!))
      .map((name) => `remove components.${kind}.${name} (a generated type name)`)
  })
}

/** Operations kept at the same path and method under another operationId. */
function renamedOperations(before: object, after: object): string[] {
  const [was, is] = [before, after].map((spec) => ((spec as { paths?: Operations }).paths ?? {}) as Operations)
  return Object.entries(was!).flatMap(([path, methods]) =>
    Object.entries(methods ?? {}).flatMap(([method, operation]) => {
      const renamed = is![path]?.[method]?.operationId
      return operation?.operationId && renamed && renamed !== operation.operationId
        ? [`replace paths.${path}.${method}.operationId (${operation.operationId} → ${renamed})`]
        : []
    }),
  )
}

/**
 * Paths kept with a path parameter renamed (`/posts/{id}` → `/posts/{postId}`). The wire is the
 * same and api-smart-diff matches the two, but openapi-fetch's calls name the path as written
 * (`GET('/posts/{id}', …)`) and hey-api's and orval's take the parameter by its name.
 */
function renamedPathParameters(before: object, after: object): string[] {
  const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}')
  const [was, is] = [before, after].map((spec) => Object.keys((spec as { paths?: object }).paths ?? {}))
  return was!
    .filter((path) => !is!.includes(path))
    .flatMap((path) =>
      is!
        .filter((renamed) => shape(renamed) === shape(path))
        .map((renamed) => `replace paths.${path} (→ ${renamed}, path parameters renamed)`),
    )
}

/** What may follow a path in a path item: the end of a path that has dots of its own (`/feed.atom`). */
const PATH_ITEM_KEYS = new Set([
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
  'parameters',
  'servers',
  'summary',
  'description',
])

/** A change's dotted path as segments again, a URL path with dots in it kept whole. */
function segmentsOf(path: string): string[] {
  const parts = path.split('.')
  if (parts[0] !== 'paths') return parts
  let end = 2
  while (end < parts.length && !PATH_ITEM_KEYS.has(parts[end]!)) end++
  return ['paths', parts.slice(1, end).join('.'), ...parts.slice(end)]
}

/**
 * The breaking changes at their source: a change inside a component is reported by api-smart-diff
 * wherever a `$ref` leads to it (every response of every operation, for the error envelope), and
 * sometimes again where it is defined; each is listed once, where it is defined.
 */
export function atSource(changes: string[], before: object, after: object): string[] {
  /** `components.<kind>.<name>.<rest>` for the last component `$ref` that `path` passes through. */
  const viaRef = (document: object, path: string[]): string | undefined => {
    let node: Node = document
    let source: string | undefined
    for (const [index, segment] of path.entries()) {
      // Responses, parameters and schemas alike may be `$ref`s (local ones only, in this document).
      for (
        let ref = (node as Json | undefined)?.$ref;
        typeof ref === 'string' && ref.startsWith(COMPONENT_REF);
        ref = (node as Json | undefined)?.$ref
      ) {
        const pointer = ref.slice(2).split('/')
        node = target(document, ref)
        source = [...pointer, ...path.slice(index)].join('.')
      }
      if (node === null || typeof node !== 'object') return undefined
      node = (node as Json)[segment]
    }
    return source
  }
  const located = changes.map((change) => {
    const [action, path] = change.split(' ', 2) as [string, string]
    const source = viaRef(before, segmentsOf(path)) ?? viaRef(after, segmentsOf(path))
    return source ? `${action} ${source}${change.slice(action.length + 1 + path.length)}` : change
  })
  return [...new Set(located)]
}

export function judge(released: Document, current: Document): Verdict {
  const breaking = atSource(breakingChanges(released, current), released, current)
  const [before, after] = [released.info.version, current.info.version].map(parseVersion) as [
    [number, number, number],
    [number, number, number],
  ]
  const summary = `released ${released.info.version} → current ${current.info.version}: ${breaking.length} breaking change(s)`
  if (breaking.length === 0) return { ok: true, breaking, lines: [summary] }
  const listed = [
    ...breaking.slice(0, 30).map((change) => `  breaking: ${change}`),
    ...(breaking.length > 30 ? [`  … and ${breaking.length - 30} more`] : []),
  ]
  if (after[0] > before[0])
    return { ok: true, breaking, lines: [`${summary}, allowed by the major version going up:`, ...listed] }
  return {
    ok: false,
    breaking,
    lines: [
      `${summary} without a major version bump (info.version must go to ${before[0] + 1}.0.0 or above):`,
      ...listed,
    ],
  }
}

/** The highest version kept under `dir` as openapi-<version>.yaml. */
export function lastReleased(dir: string): { file: string; document: Document } {
  const releases = readdirSync(dir)
    .map((name) => /^openapi-(.+)\.yaml$/.exec(name))
    .filter((match) => match !== null)
    .map((match) => ({ file: join(dir, match[0]), version: parseVersion(match[1]!) }))
    .sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1] || b.version[2] - a.version[2])
  if (releases.length === 0) throw new Error(`no released spec (openapi-<version>.yaml) in ${dir}`)
  return { file: releases[0]!.file, document: readYaml(releases[0]!.file) }
}

export const readYaml = (file: string) => parse(readFileSync(file, 'utf8')) as Document
