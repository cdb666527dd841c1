// Images the tests make themselves with sharp, and multipart bodies to upload them in.
import { randomBytes, randomUUID } from 'node:crypto'
import { crc32 } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'

/** A plain image of one colour in the given format. */
export function solidImage(
  width: number,
  height: number,
  format: 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff',
  colour = '#3366cc',
) {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer()
}

/**
 * A PNG of random pixels stored uncompressed, as large as it can be within `bytes` (at most a row,
 * 1.5 KB, less): for uploads of a given size that are real images.
 */
export async function pngOfSize(bytes: number): Promise<Buffer> {
  const width = 512
  const rowBytes = width * 3 + 1
  let height = Math.floor(bytes / rowBytes)
  for (;;) {
    const png = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    if (png.length <= bytes) return png
    height -= Math.ceil((png.length - bytes) / rowBytes)
  }
}

/**
 * A camera-like JPEG: landscape pixels with EXIF orientation 6 (shown rotated to portrait) and
 * GPS coordinates in its EXIF.
 */
export function jpegWithGps(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: '#c04020' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2964/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 17/1 4044/100',
      },
    })
    .toBuffer()
}

/** Whether an EXIF block points at a GPS IFD (tag 0x8825, in either byte order). */
export const hasGpsIfd = (exif: Buffer | undefined) =>
  exif !== undefined && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])))

/** A valid PNG of one pixel whose header claims `width`×`height`: a decompression bomb's shape in 90 bytes. */
export async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await solidImage(1, 1, 'png'))
  // IHDR: length (8), type (12), width (16), height (20), …, CRC over type and data (29).
  png.writeUInt32BE(width, 16)
  png.writeUInt32BE(height, 20)
  png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29)
  return png
}

export interface Part {
  name: string
  data: Buffer | string
  filename?: string
  contentType?: string
}

/** A multipart/form-data body and its Content-Type header. */
export function multipartBody(parts: Part[]) {
  const boundary = `----test-${randomUUID()}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`
    const type = part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`),
    )
    chunks.push(Buffer.from(part.data), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, boundary }
}

/** PUT /posts/{id}/thumbnail with one file part named `file`. */
export function uploadThumbnail(
  app: FastifyInstance,
  postId: string,
  headers: Record<string, string>,
  data: Buffer | string,
  file: { filename?: string; contentType?: string } = {},
) {
  const body = multipartBody([
    { name: 'file', data, filename: file.filename ?? 'photo.jpg', contentType: file.contentType ?? 'image/jpeg' },
  ])
  return app.inject({
    method: 'PUT',
    url: `/posts/${postId}/thumbnail`,
    headers: { ...headers, 'content-type': body.contentType },
    payload: body.payload,
  })
}

/** The keys a post's thumbnail uses, from its URLs (what follows the last `/`, whatever the url prefix). */
export const keysOf = (post: { thumbnail: { sizes: { url: string }[] } | null }) =>
  (post.thumbnail?.sizes ?? []).map((size) => size.url.slice(size.url.lastIndexOf('/') + 1))

/** Polls until `check` holds, for at most `timeoutMs`; returns whether it did. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
