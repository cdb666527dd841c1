// Whether a new version of the contract keeps the promises of the last released one. The diff
// and its breaking/non-breaking classification come from api-smart-diff, which follows `$ref`s
// and judges each change by where it is (a removed enum value breaks a request, not a response).
// Its classification is used as is, plus one kind it does not see: a changed operationId, which
// renames the function of every generated client (a removed or renamed component schema, which
// renames a generated type, it does report). The version rule on top is ours: a breaking change
// needs a higher major version.
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

/** Every change api-smart-diff classifies as breaking, as "path: description", prose aside. */
export function breakingChanges(before: object, after: object): string[] {
  const { diffs } = apiCompare(before, after)
  // A keyword, not a property that happens to be named `title` (`…properties.title`).
  const isAnnotation = (path: unknown[]) => ANNOTATIONS.has(String(path.at(-1))) && path.at(-2) !== 'properties'
  return [
    ...diffs.filter((diff) => diff.type === 'breaking' && !isAnnotation(diff.path)).map((diff) => `${diff.action} ${diff.path.join('.')}`),
    ...renamedOperations(before, after),
  ]
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

export function judge(released: Document, current: Document): Verdict {
  const breaking = breakingChanges(released, current)
  const [before, after] = [released.info.version, current.info.version].map(parseVersion) as [[number, number, number], [number, number, number]]
  const summary = `released ${released.info.version} → current ${current.info.version}: ${breaking.length} breaking change(s)`
  if (breaking.length === 0) return { ok: true, breaking, lines: [summary] }
  if (after[0] > before[0]) return { ok: true, breaking, lines: [`${summary}, allowed by the major version going up`] }
  return {
    ok: false,
    breaking,
    lines: [
      `${summary} without a major version bump (info.version must go to ${before[0] + 1}.0.0 or above):`,
      ...breaking.slice(0, 30).map((change) => `  breaking: ${change}`),
      ...(breaking.length > 30 ? [`  … and ${breaking.length - 30} more`] : []),
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
