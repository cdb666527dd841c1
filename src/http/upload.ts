// Multipart uploads. @fastify/multipart only marks a request as multipart; nothing is read until a
// handler asks, which it does after the caller's rights were checked. The one file part is read
// into memory up to the configured size and not a byte further.
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import type { Config } from '../config.ts'
import { ApiError } from './api-error.ts'

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
const unread = (error: ApiError) => new ApiError(error.statusCode, error.code, error.message, error.details, { ...error.headers, connection: 'close' })

const badForm = (field: string) =>
  new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
    { path: '/body', message: `must be multipart/form-data with exactly one part: a file named "${field}"` },
  ])

const tooLarge = (limit: number) => new ApiError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${limit} bytes.`)

/** Reads one file stream into memory, failing the moment it crosses `limit`. */
async function readBounded(file: Readable & { truncated?: boolean }, limit: number): Promise<Buffer> {
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
    for await (const chunk of file) chunks.push(chunk as Buffer)
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
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return unread(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This operation takes multipart/form-data.'))
  }
  // Limits on parts, files and fields, and malformed or truncated multipart data.
  return unread(badForm(field))
}

/** The bytes of the single file part named `field`; 400 for any other shape of form, 413 over `limit`. */
export async function readSingleFile(request: FastifyRequest, field: string, limit: number): Promise<Buffer> {
  try {
    const parts = request.parts()
    const first = await parts.next()
    if (first.done || first.value.type !== 'file' || first.value.fieldname !== field) throw badForm(field)
    const bytes = await readBounded(first.value.file, limit)
    // Read to the end: a trailing part trips a limit here, and a complete read leaves nothing unread.
    if (!(await parts.next()).done) throw badForm(field)
    return bytes
  } catch (error) {
    throw toUploadError(error, field, limit)
  }
}
