// Whether a new version of the contract keeps the promises of the last released one. The diff
// and its breaking/non-breaking classification come from api-smart-diff, which judges each change
// by where it is (a removed enum value breaks a request, not a response). It is given the contract
// as the wire sees it (resolvedContract below); its classification is used as is. Two kinds of
// break it cannot see there are added: a schema removed from `components` (renamed, or moved
// inline) and a changed operationId, which rename the types and functions of every generated
// client. The version rule on top is ours: a breaking change needs a higher major version.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
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

const SCHEMA_REF = '#/components/schemas/'

/**
 * The contract as api-smart-diff should read it: every schema `$ref` replaced by the schema it
 * names (keywords beside a `$ref`, allowed by OpenAPI 3.1, laid over it), in the paths and in the
 * components alike; prose and samples left out, and `format: binary` too (it tells generators
 * "bytes" and constrains nothing: ajv-formats accepts any value). Read as written, api-smart-diff
 * reports an inline schema moved into a component of its own as constraints removed (when a
 * description stands beside the new `$ref`, or the `$ref` sits in a component another one uses).
 */
export function resolvedContract(document: object): object {
  const schemas = ((document as Json).components as Json | undefined)?.schemas as Json | undefined
  const inline = (node: Node, within: string, refs: string[]): Node => {
    if (Array.isArray(node)) return node.map((item) => inline(item, within, refs))
    if (node === null || typeof node !== 'object') return node
    const { $ref, ...rest } = node as Json
    const kept = Object.entries(rest).filter(([key, value]) => NAME_MAPS.has(within) || !(ANNOTATIONS.has(key) || (key === 'format' && value === 'binary')))
    const own = Object.fromEntries(kept.map(([key, value]) => [key, inline(value, key, refs)]))
    if (typeof $ref !== 'string' || !$ref.startsWith(SCHEMA_REF)) return typeof $ref === 'string' ? { $ref, ...own } : own
    if (refs.includes($ref)) throw new Error(`circular $ref ${$ref}`)
    return { ...(inline(schemas?.[$ref.slice(SCHEMA_REF.length)], within, [...refs, $ref]) as Json), ...own }
  }
  return inline(document, '', []) as object
}

/**
 * Every breaking change, as "action path". On the wire, a whole schema added to or removed from
 * `components` is compared where it is used; its name is compared on its own (removedSchemas).
 */
export function breakingChanges(before: object, after: object): string[] {
  const { diffs } = apiCompare(resolvedContract(before), resolvedContract(after))
  const wholeSchema = (path: unknown[]) => path.length === 3 && path[0] === 'components' && path[1] === 'schemas'
  return [
    ...diffs.filter((diff) => diff.type === 'breaking' && !wholeSchema(diff.path)).map((diff) => `${diff.action} ${diff.path.join('.')}`),
    ...removedSchemas(before, after),
    ...renamedOperations(before, after),
  ]
}

/** Component schemas gone by name: each was a type in generated clients. */
function removedSchemas(before: object, after: object): string[] {
  const [was, is] = [before, after].map((spec) => ((spec as Json).components as Json | undefined)?.schemas as Json | undefined)
  return Object.keys(was ?? {})
    .filter((name) => !(name in (is ?? {})))
    .map((name) => `remove components.schemas.${name} (a generated type name)`)
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
 * The breaking changes at their source: a change inside a component (schema, response, header) is reported by
 * api-smart-diff once where it is defined and again wherever a `$ref` leads to it (every response
 * of every operation, for the error envelope); the repeats are left out.
 */
export function atSource(changes: string[], before: object, after: object): string[] {
  const listed = new Set(changes)
  /** `components.<kind>.<name>.<rest>` for the last `$ref` that `path` passes through. */
  const viaRef = (document: object, path: string[]): string | undefined => {
    let node: Node = document
    let source: string | undefined
    for (const [index, segment] of path.entries()) {
      // Responses, parameters and schemas alike may be `$ref`s (local ones only, in this document).
      for (let ref = (node as Json | undefined)?.$ref; typeof ref === 'string' && ref.startsWith('#/'); ref = (node as Json | undefined)?.$ref) {
        const pointer = ref.slice(2).split('/')
        node = pointer.reduce<Node>((at, key) => (at as Json | undefined)?.[key], document)
        if (ref.startsWith('#/components/')) source = [...pointer, ...path.slice(index)].join('.')
      }
      if (node === null || typeof node !== 'object') return undefined
      node = (node as Json)[segment]
    }
    return source
  }
  return changes.filter((change) => {
    const [action, path] = change.split(' ', 2) as [string, string]
    const segments = path.split('.')
    const source = viaRef(before, segments) ?? viaRef(after, segments)
    return !(source && source !== path && listed.has(`${action} ${source}`))
  })
}

export function judge(released: Document, current: Document): Verdict {
  const breaking = atSource(breakingChanges(released, current), released, current)
  const [before, after] = [released.info.version, current.info.version].map(parseVersion) as [[number, number, number], [number, number, number]]
  const summary = `released ${released.info.version} → current ${current.info.version}: ${breaking.length} breaking change(s)`
  if (breaking.length === 0) return { ok: true, breaking, lines: [summary] }
  const listed = [...breaking.slice(0, 30).map((change) => `  breaking: ${change}`), ...(breaking.length > 30 ? [`  … and ${breaking.length - 30} more`] : [])]
  if (after[0] > before[0]) return { ok: true, breaking, lines: [`${summary}, allowed by the major version going up:`, ...listed] }
  return { ok: false, breaking, lines: [`${summary} without a major version bump (info.version must go to ${before[0] + 1}.0.0 or above):`, ...listed] }
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
