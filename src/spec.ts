// The hand-written contract, read once: it drives routing, validation, docs and the version we report.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const SPEC_PATH = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url))

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

export type SecurityRequirement = Record<string, string[]>

export interface OperationSpec {
  operationId: string
  tags?: string[]
  security?: SecurityRequirement[]
  responses: Record<string, unknown>
  [key: string]: unknown
}

export interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; [key: string]: unknown }
  paths: Record<string, Partial<Record<(typeof HTTP_METHODS)[number], OperationSpec>>>
  security?: SecurityRequirement[]
  components: { schemas: Record<string, { enum?: string[]; [key: string]: unknown }>; [key: string]: unknown }
  [key: string]: unknown
}

let cached: OpenApiDocument | undefined

/** The parsed document. Callers must not mutate it; fastify-openapi-glue clones what it changes. */
export function loadSpec(): OpenApiDocument {
  cached ??= parse(readFileSync(SPEC_PATH, 'utf8')) as OpenApiDocument
  return cached
}

export interface SpecOperation {
  method: Uppercase<(typeof HTTP_METHODS)[number]>
  path: string
  operation: OperationSpec
}

export function listOperations(spec: OpenApiDocument = loadSpec()): SpecOperation[] {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method]
      return operation ? [{ method: method.toUpperCase() as SpecOperation['method'], path, operation }] : []
    }),
  )
}
