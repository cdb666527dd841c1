// The logger the code below HTTP writes to (jobs, queue, mail, cache invalidation): the part of
// Fastify's logger (pino) it uses, declared here so that it takes `app.log` without importing Fastify.

/** One structured line: its fields (an error under `err`), then the message. */
type LogLine = (fields: object, message: string) => void

export interface Logger {
  info: LogLine
  warn: LogLine
  error: LogLine
}
