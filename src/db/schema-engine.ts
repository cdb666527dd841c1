// Prisma's migration engine (schema engine) compiled to WebAssembly, driven through a driver adapter.
//
// The package's own entry point `import`s its `.wasm` as an ES module, which Node 20 refuses without
// `--experimental-wasm-modules`. We therefore do by hand what that entry point does: load the
// wasm-bindgen glue (`schema_engine_bg.js`), compile the `.wasm` ourselves, wire the two together.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils'
import type {
  ApplyMigrationsInput,
  ApplyMigrationsOutput,
  DiagnoseMigrationHistoryInput,
  DiagnoseMigrationHistoryOutput,
  DiffParams,
  DiffResult,
  SchemaEngine as WasmSchemaEngine,
} from '@prisma/schema-engine-wasm'

type EngineModule = typeof import('@prisma/schema-engine-wasm/schema_engine_bg')
type WasmImports = Record<string, Record<string, unknown>>

// The project's `lib` (ES2023, no DOM) has no WebAssembly typings; only these two calls are needed.
const { WebAssembly: wasmApi } = globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<object>
    instantiate(module: object, imports: WasmImports): Promise<{ exports: Record<string, unknown> }>
  }
}

let engineModule: Promise<EngineModule> | undefined

/** Compiles and instantiates the wasm once per process; every engine shares that instance. */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    // Resolve through the package's exports map so a hoisted or nested install both work.
    const require = createRequire(import.meta.url)
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')
    const bg: EngineModule = await import('@prisma/schema-engine-wasm/schema_engine_bg')
    const wasmModule = await wasmApi.compile(await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm')))
    // The wasm's imports all come from the glue module, under the specifier the bundler would use.
    const instance = await wasmApi.instantiate(wasmModule, {
      './schema_engine_bg.js': withUnrefTimers(bg),
    })
    bg.__wbg_set_wasm(instance.exports)
    ;(instance.exports.__wbindgen_start as () => void)()
    return bg
  })()
  // A failed load must not poison the process: let the next caller retry.
  engineModule.catch(() => {
    engineModule = undefined
  })
  return engineModule
}

/**
 * When applying migrations the engine arms a 10 s timer (its advisory-lock timeout) and has no way
 * to cancel it (the glue imports no clearTimeout), so every run would keep the process alive 10 s
 * after it is done. Its timers are unref'd here; `run()` below keeps the process alive while a command runs.
 */
function withUnrefTimers(bg: EngineModule): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...bg }
  for (const name of Object.keys(imports).filter((key) => key.startsWith('__wbg_setTimeout_'))) {
    const setTimer = imports[name] as (callback: () => void, ms: number) => NodeJS.Timeout
    imports[name] = (callback: () => void, ms: number) => setTimer(callback, ms).unref()
  }
  return imports
}

export interface SchemaFile {
  /** Only used by the engine in error messages. */
  path: string
  content: string
}

export interface OpenEngineOptions {
  /** The datamodel the engine starts with; needed by commands that read "the" schema. */
  schema?: SchemaFile
  /** Receives the engine's own log lines (tracing output); dropped when absent. */
  log?: (line: string) => void
}

/** The subset of engine commands this project uses, with errors made readable. */
export interface SchemaEngine {
  applyMigrations(input: ApplyMigrationsInput): Promise<ApplyMigrationsOutput>
  diagnoseMigrationHistory(input: DiagnoseMigrationHistoryInput): Promise<DiagnoseMigrationHistoryOutput>
  diff(input: DiffParams): Promise<DiffResult>
  /**
   * Frees the engine and the connections it opened through the factory (for `PrismaPg`, the pool
   * it created). The caller's own handle (a PGlite instance, an external pg pool) stays open.
   */
  close(): Promise<void>
}

/** An error the engine reported, with Prisma's error code (e.g. `P3009`) when it gave one. */
export class SchemaEngineError extends Error {
  readonly code: string | undefined
  constructor(command: string, message: string, code?: string, options?: ErrorOptions) {
    super(`schema engine ${command} failed${code ? ` (${code})` : ''}: ${message}`, options)
    this.name = 'SchemaEngineError'
    this.code = code
  }
}

export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  options: OpenEngineOptions = {},
): Promise<SchemaEngine> {
  const bg = await loadEngineModule()
  const connections = trackConnections(adapterFactory)
  // The engine expects the adapter's calls to return Results ({ ok, value | error }), which this
  // wrapper provides, as it does for PrismaClient.
  const bound = bindMigrationAwareSqlAdapterFactory(connections.factory)
  const log = options.log ?? (() => {})
  const datamodels: [string, string][] | undefined = options.schema
    ? [[options.schema.path, options.schema.content]]
    : undefined

  let engine: WasmSchemaEngine
  try {
    engine = await bg.SchemaEngine.new({ datamodels }, log, bound)
  } catch (error) {
    await connections.disposeAll()
    throw toEngineError('open', error)
  }

  // Each call goes through `engine[command](…)` directly: detaching the method loses its wasm pointer.
  const run = async <T>(command: string, call: () => Promise<T>): Promise<T> => {
    // The engine's own timers are unref'd; on PGlite nothing else may hold the event loop open
    // while the engine waits on one, so hold it for the duration of the command.
    const keepAlive = setInterval(() => {}, 60_000)
    try {
      return await call()
    } catch (error) {
      throw toEngineError(command, error)
    } finally {
      clearInterval(keepAlive)
    }
  }

  let closed = false
  return {
    applyMigrations: (input) => run('applyMigrations', () => engine.applyMigrations(input)),
    diagnoseMigrationHistory: (input) => run('diagnoseMigrationHistory', () => engine.diagnoseMigrationHistory(input)),
    diff: (input) => run('diff', () => engine.diff(input)),
    async close() {
      if (closed) return
      closed = true
      engine.free()
      await connections.disposeAll()
    },
  }
}

/** Opens an engine, runs `fn`, and frees the engine whatever happens. */
export async function withSchemaEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  options: OpenEngineOptions,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const engine = await openSchemaEngine(adapterFactory, options)
  try {
    return await fn(engine)
  } finally {
    await engine.close()
  }
}

/**
 * Wraps the factory so that every connection the engine opens is (1) disposed when the engine is
 * closed — freeing the wasm engine does not dispose them, and `PrismaPg` opens a pool per connect —
 * and (2) fixed where the adapter does not behave as the native engine's driver (`fixAdapter`).
 */
function trackConnections(factory: SqlMigrationAwareDriverAdapterFactory) {
  const opened: SqlDriverAdapter[] = []
  const track = async (connecting: Promise<SqlDriverAdapter>) => {
    const adapter = await connecting
    try {
      fixAdapter(adapter)
    } catch (error) {
      await adapter.dispose()
      throw error
    }
    const dispose = adapter.dispose.bind(adapter)
    let disposed: Promise<void> | undefined
    // Idempotent: the engine may dispose a connection (e.g. a shadow database) itself.
    adapter.dispose = () => (disposed ??= dispose())
    opened.push(adapter)
    return adapter
  }
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: () => track(factory.connect()),
      connectToShadowDb: () => track(factory.connectToShadowDb()),
    } satisfies SqlMigrationAwareDriverAdapterFactory,
    async disposeAll() {
      const adapters = opened.splice(0)
      await Promise.allSettled(adapters.map((adapter) => adapter.dispose()))
    },
  }
}

type QueryResultLike = { fields?: { dataTypeID: number }[] }
type PgPoolLike = { query(...args: unknown[]): Promise<QueryResultLike> }
type AdapterInternals = {
  onError?: (error: unknown) => never
  client?: PgPoolLike & { exec?(sql: string): Promise<unknown> }
}

/**
 * Patches, on the engine's own connections only, what the adapters get wrong for the engine.
 *
 * Scripts. The native engine sends a migration script to Postgres as one simple-protocol query:
 * one round trip, one implicit transaction, so a failing script leaves nothing half-applied and is
 * recorded as failed. The adapters' own `executeScript` break that:
 * - pglite-prisma-adapter 0.7 does not await `exec`: a failing migration is recorded as applied
 *   and its error surfaces later as an unhandled rejection that kills the process;
 * - @prisma/adapter-pg 7.10 splits the script on every `;` (breaking `;` inside strings, comments
 *   and function bodies) and runs the pieces one by one on the pool, without atomicity.
 * Both drivers accept a multi-statement script as-is; we hand it over unchanged and let the
 * adapter translate driver errors as it does for every other query.
 *
 * Introspection. @prisma/adapter-pg 7.10 rejects columns of Postgres' internal `"char"` type
 * (OID 18, e.g. `pg_constraint.contype`), which the engine's schema describer selects, so any
 * diff against a live Postgres fails with "Column type 'char' could not be deserialized". Its
 * values arrive as plain strings; we report the column as `text` (OID 25), as PGlite's adapter does.
 *
 * These rely on the adapters' internals (pinned versions); an unknown adapter is refused rather
 * than risk recording a failed migration as applied.
 */
function fixAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const internals = adapter as SqlDriverAdapter & AdapterInternals
  const client = internals.client
  let runScript: (script: string) => Promise<unknown>
  if (adapter.adapterName === '@prisma/adapter-pg' && typeof client?.query === 'function') {
    // A per-adapter view of the pool: a pool passed in by the app is itself left untouched.
    const pool = client
    const query = async (...args: unknown[]) => {
      const result = await pool.query(...args)
      for (const field of result.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25
      return result
    }
    internals.client = new Proxy(pool, {
      get: (target, key) => {
        if (key === 'query') return query
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    runScript = (script) => pool.query(script)
  } else if (adapter.adapterName === 'pglite-prisma-adapter' && typeof client?.exec === 'function') {
    const exec = client.exec.bind(client)
    runScript = (script) => exec(script)
  } else {
    throw new Error(
      `schema engine: unsupported driver adapter ${adapter.adapterName} (supported: @prisma/adapter-pg, pglite-prisma-adapter)`,
    )
  }
  if (typeof internals.onError !== 'function') {
    throw new Error(`schema engine: ${adapter.adapterName} has no onError; its internals changed`)
  }
  const onError = internals.onError.bind(adapter)
  adapter.executeScript = async (script) => {
    try {
      await runScript(script)
    } catch (error) {
      onError(error)
    }
  }
  return adapter
}

function toEngineError(command: string, error: unknown): Error {
  if (!(error instanceof Error)) return new SchemaEngineError(command, String(error))
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined
  // Connector errors end with a Rust span trace ("   0: sql_schema_connector::…") that would bury
  // the database's own message; it stays on `cause`, and we keep only which migration failed.
  const [message, trace = ''] = error.message.split(/\n\s+0: /)
  const migration = /migration_name="([^"]+)"/.exec(trace)?.[1]
  const where = migration ? ` [migration ${migration}]` : ''
  return new SchemaEngineError(command, `${message!.trim()}${where}`, code, { cause: error })
}
