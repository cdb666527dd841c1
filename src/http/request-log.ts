// Each request's logger (`request.log`): pino's child logger bound to the request id, made when the
// request first writes a line at an enabled level. Making a child costs microseconds, as pino runs
// the redaction over its bindings, and at the usual levels (warn, error) most requests log nothing.
import type { FastifyBaseLogger, FastifyLogFn } from 'fastify'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
/** The app's logger is pino's (fastifyOptions), which also answers whether a level is enabled. */
type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean }

class RequestLog implements FastifyBaseLogger {
  readonly #parent: Logger
  readonly #bindings: Bindings
  #child: Logger | undefined

  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent
    this.#bindings = bindings
  }

  #made(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings) as Logger)
  }

  /** The child when a line goes out at `level`; undefined when it would be dropped. */
  #at(level: Level): Logger | undefined {
    if (this.#child !== undefined) return this.#child
    return this.#parent.isLevelEnabled(level) ? this.#made() : undefined
  }

  get level(): FastifyBaseLogger['level'] {
    return (this.#child ?? this.#parent).level
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#made().level = level
  }

  isLevelEnabled(level: FastifyBaseLogger['level']): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level)
  }

  // pino's log functions are overloaded; the arguments go on as they came.
  fatal(...args: Parameters<FastifyLogFn>) {
    this.#at('fatal')?.fatal(...args)
  }
  error(...args: Parameters<FastifyLogFn>) {
    this.#at('error')?.error(...args)
  }
  warn(...args: Parameters<FastifyLogFn>) {
    this.#at('warn')?.warn(...args)
  }
  info(...args: Parameters<FastifyLogFn>) {
    this.#at('info')?.info(...args)
  }
  debug(...args: Parameters<FastifyLogFn>) {
    this.#at('debug')?.debug(...args)
  }
  trace(...args: Parameters<FastifyLogFn>) {
    this.#at('trace')?.trace(...args)
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options)
  }
}

/** Fastify's childLoggerFactory: options (a route's own log level or serializers) need a child at once. */
export function requestLog(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
  for (const _ in options) return logger.child(bindings, options)
  return new RequestLog(logger as Logger, bindings)
}
