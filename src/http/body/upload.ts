// Multipart uploads. @fastify/multipart only marks a request as multipart; nothing is read until a
// handler asks, which it does after the caller's rights were checked. The one file part is read
// into memory up to the configured size and not a byte further, and the whole body (preamble and
// epilogue around the parts included, which busboy reads and drops) is bounded too.
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'

export async function registerMultipart(app: FastifyInstance, config: Pick<Config, 'uploadLimitBytes'>) {
  await app.register(multipart, {
    // One file and nothing else: any further part, field or file, trips a limit and is refused.
    limits: { fileSize: config.uploadLimitBytes, files: 1, fields: 0, parts: 1, headerPairs: 20, fieldNameSize: 100 },
  })
}

/**
 * An error raised while the body is still (partly) unread. `Connection: close` makes Node close
 * the socket after the answer instead of reading and discarding the rest to reuse the connection.
 */
const unread = (error: ApiError) =>
  new ApiError(error.statusCode, error.code, error.message, error.details, { ...error.headers, connection: 'close' })

const badForm = (field: string) =>
  new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
    { path: '/body', message: `must be multipart/form-data with exactly one part: a file named "${field}"` },
  ])

const tooLarge = (limit: number) => new ApiError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${limit} bytes.`)

/**
 * Room for the multipart framing around the file: boundaries, part headers, a short preamble.
 * The file limit only covers the file part; busboy would read any amount before the first
 * boundary or after the last one, so the body as a whole is held to the limit plus this.
 */
export const MULTIPART_FRAMING_BYTES = 64 * 1024

const bodyTooLarge = (limit: number) =>
  new ApiError(
    413,
    'PAYLOAD_TOO_LARGE',
    `The request body is larger than ${limit + MULTIPART_FRAMING_BYTES} bytes; the file may be at most ${limit} bytes.`,
  )

/**
 * Counts the raw bytes of the request as they arrive. Past the bound it stops the parse (busboy
 * gets no more data) and `exceeded` rejects, so whatever the reader awaits can be raced with it.
 */
function countBody(raw: FastifyRequest['raw'], limit: number) {
  const bound = limit + MULTIPART_FRAMING_BYTES
  let received = 0
  let fail: (error: ApiError) => void = () => {}
  const exceeded = new Promise<never>((_, reject) => {
    fail = reject
  })
  // Never left unhandled: it only rejects while the reader is racing it.
  exceeded.catch(() => {})
  const count = (chunk: Buffer) => {
    received += chunk.length
    if (received <= bound) return
    stop()
    raw.unpipe()
    raw.pause()
    fail(bodyTooLarge(limit))
  }
  const stop = () => raw.removeListener('data', count)
  raw.on('data', count)
  return { exceeded, stop }
}

/** Reads one file stream into memory, failing the moment it crosses `limit`. */
async function readBounded(
  file: Readable & { truncated?: boolean },
  limit: number,
  exceeded: Promise<never>,
): Promise<Buffer> {
  const chunks: Buffer[] = []
  let over = false
  // At the limit busboy stops passing data on, but would go on reading (and dropping) the rest of
  // the part until its end: destroying the stream stops the parse there. The limit may already
  // have been hit while the part was handed to us, hence the first check.
  const stop = () => {
    over = true
    file.destroy()
  }
  if (file.truncated) stop()
  else file.once('limit', stop)
  try {
    // The async iterator also settles on a stream that ended or failed before we got to it.
    const iterator = file[Symbol.asyncIterator]()
    for (;;) {
      const next = await Promise.race([iterator.next(), exceeded])
      if (next.done) break
      chunks.push(next.value as Buffer)
    }
  } catch (error) {
    if (!over) throw error
  }
  if (over || file.truncated) throw tooLarge(limit)
  return Buffer.concat(chunks)
}

function toUploadError(error: unknown, field: string, limit: number): ApiError {
  if (error instanceof ApiError) return unread(error)
  const code = (error as { code?: unknown }).code
  if (code === 'FST_REQ_FILE_TOO_LARGE') return unread(tooLarge(limit))
  // Limits on parts, files and fields, and malformed or truncated multipart data.
  return unread(badForm(field))
}

/** The bytes of the single file part named `field`; 400 for any other shape of form, 413 over `limit`. */
export async function readSingleFile(request: FastifyRequest, field: string, limit: number): Promise<Buffer> {
  // A declared length past the limit and its framing is refused before a byte is read.
  const declared = Number(request.headers['content-length'])
  if (declared > limit + MULTIPART_FRAMING_BYTES) throw unread(bodyTooLarge(limit))
  let counter: ReturnType<typeof countBody> | undefined
  try {
    // Checked here, not left to parts(): the counter below must only see a body busboy is reading.
    if (!request.isMultipart())
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This operation takes multipart/form-data.')
    const parts = request.parts()
    // The first next() pipes the request into busboy (synchronously): counting starts right after,
    // as a 'data' listener added earlier would let the stream flow with nobody reading it.
    const firstPart = parts.next()
    counter = countBody(request.raw, limit)
    const first = await Promise.race([firstPart, counter.exceeded])
    if (first.done || first.value.type !== 'file' || first.value.fieldname !== field) throw badForm(field)
    const bytes = await readBounded(first.value.file, limit, counter.exceeded)
    // Read to the end: a trailing part trips a limit here, and a complete read leaves nothing unread.
    if (!(await Promise.race([parts.next(), counter.exceeded])).done) throw badForm(field)
    return bytes
  } catch (error) {
    throw toUploadError(error, field, limit)
  } finally {
    counter?.stop()
  }
}
