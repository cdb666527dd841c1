// Media items for tests of what post bodies show (test/content/media/render*.test.ts).
//
// Until the media library's upload (uploadMedia, POST /media, issue 34 part B) is merged, an item
// is written straight into the tables, as that upload would leave them: real WebP renditions
// (made with sharp, content-addressed like src/images/renditions.ts keys them) in `images`, the
// item in `media`, one row per rendition in `media_renditions`. Once it lands, this function is to
// upload the image through POST /media instead, and return what that answers.
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Parser } from 'htmlparser2'
import sharp from 'sharp'
import { urlPrefixOf } from '../../src/images/image-urls.ts'
import { multipartBody, solidImage } from './images.ts'

export interface TestMediaItem {
  id: string
  /** The largest rendition's URL: what uploadMedia answers as `url`, and a body refers to. */
  url: string
  width: number
  height: number
  alt: string | null
  /** Narrowest first. */
  renditions: { key: string; width: number; height: number; url: string }[]
}

/** The height of a rendition `width` wide: the tests' images are 3:2, as a camera's are. */
const heightOf = (width: number) => Math.round((width * 2) / 3)

/** A WebP of random pixels (so every item's keys are its own), as the service encodes one. */
async function webp(width: number) {
  const pixels = randomBytes(width * heightOf(width) * 3)
  return sharp(pixels, { raw: { width, height: heightOf(width), channels: 3 } })
    .webp({ quality: 50 })
    .toBuffer()
}

/** A media item of `ownerId` with one rendition per width in `widths` (default 320, 640, 1280). */
export async function createMediaItem(
  app: FastifyInstance,
  ownerId: string,
  { widths = [320, 640, 1280], alt = null }: { widths?: number[]; alt?: string | null } = {},
): Promise<TestMediaItem> {
  const { prisma } = app.services.database
  const sorted = [...widths].sort((a, b) => a - b)
  const renditions = await Promise.all(
    sorted.map(async (width) => {
      const data = await webp(width)
      const key = `${createHash('sha256').update(data).digest('hex')}.webp`
      return { key, width, height: heightOf(width), data, url: `${urlPrefixOf({ publicPath: '' })}${key}` }
    }),
  )
  const largest = renditions.at(-1)!
  const id = await prisma.$transaction(async (tx) => {
    for (const { key, width, height, data } of renditions) {
      await tx.$executeRaw`
        insert into images (key, content_type, width, height, byte_size, data)
        values (${key}, 'image/webp', ${width}, ${height}, ${data.length}, ${data})
        on conflict (key) do nothing`
    }
    const byteSize = renditions.reduce((sum, { data }) => sum + data.length, 0)
    const media = await tx.media.create({
      data: { ownerId, alt, width: largest.width, height: largest.height, byteSize },
      select: { id: true },
    })
    await tx.mediaRendition.createMany({
      data: renditions.map(({ key, width }) => ({ mediaId: media.id, imageKey: key, width })),
    })
    return media.id
  })
  return {
    id,
    url: largest.url,
    width: largest.width,
    height: largest.height,
    alt,
    renditions: renditions.map(({ key, width, height, url }) => ({ key, width, height, url })),
  }
}

/** Every <img> of `html` with its attributes (entities decoded), parsed as the sanitizer parses HTML. */
export function imagesIn(html: string): Record<string, string>[] {
  const images: Record<string, string>[] = []
  const parser = new Parser(
    { onopentag: (name, attributes) => void (name === 'img' && images.push(attributes)) },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return images
}

/** POST /media with one file part named `file`. */
export function uploadMedia(app: FastifyInstance, headers: Record<string, string>, data: Buffer | string) {
  const body = multipartBody([{ name: 'file', data, filename: 'photo.png', contentType: 'image/png' }])
  return app.inject({
    method: 'POST',
    url: '/media',
    headers: { ...headers, 'content-type': body.contentType },
    payload: body.payload,
  })
}

/**
 * An uploaded item (201), from a plain image `width` pixels wide in a colour of its own (random by
 * default: on a shared PostgreSQL, other items must not share its content-addressed images).
 */
export async function createMedia(
  app: FastifyInstance,
  headers: Record<string, string>,
  width = 400,
  colour = `#${randomBytes(3).toString('hex')}`,
) {
  const response = await uploadMedia(app, headers, await solidImage(width, Math.round(width / 2), 'png', colour))
  if (response.statusCode !== 201) throw new Error(`uploadMedia: ${response.statusCode} ${response.body}`)
  return response.json().data as MediaItem
}

export interface MediaItem {
  id: string
  ownerId: string
  url: string
  width: number
  height: number
  contentType: string
  byteSize: number
  alt: string | null
  renditions: { width: number; height: number; url: string }[]
  createdAt: string
}

/**
 * Makes a published post show the item, as part C's post writes will (post_media rows written with
 * the html). Until part C lands, the row is inserted with SQL.
 */
export async function showInPost(app: FastifyInstance, postId: string, mediaId: string) {
  await app.services.database.prisma.$executeRaw`
    insert into post_media (post_id, media_id) values (${postId}::uuid, ${mediaId}::uuid)`
}

/** How many images rows exist. */
export async function countImages(app: FastifyInstance): Promise<number> {
  return app.services.database.prisma.image.count()
}
