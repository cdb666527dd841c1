// Media items made as clients make them: uploaded through POST /media (uploadMedia), their alt text
// set through PATCH /media/{id} (updateMedia). A post shows an item because its body refers to it
// (`![alt](<the item's url>)`): createPost and updatePost write post_media with the html.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Parser } from 'htmlparser2'
import { multipartBody, solidImage } from './images.ts'

/** What uploadMedia answers (and getMedia, listMedia, updateMedia). */
export interface MediaItem {
  id: string
  ownerId: string
  /** The largest rendition's URL: what a post's body refers to. */
  url: string
  width: number
  height: number
  contentType: string
  byteSize: number
  alt: string | null
  /** Narrowest first; the last is `url`. */
  renditions: { width: number; height: number; url: string }[]
  createdAt: string
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

export interface MediaOptions {
  /**
   * The image's width in pixels (its height is half of it). Renditions are 320, 640 and 1280 wide,
   * never upscaled: 400 gives one (320), 640 two, 1280 or more three; under 320, one at its own width.
   */
  width?: number
  /** A colour of its own (random by default: on a shared PostgreSQL, other items must not share its content-addressed images). */
  colour?: string
  /** Set after the upload with updateMedia; the item as that answers is returned. */
  alt?: string | null
}

/** An uploaded item (201), from a plain image; with `alt`, also given that alt text (200). */
export async function createMedia(
  app: FastifyInstance,
  headers: Record<string, string>,
  { width = 400, colour = `#${randomBytes(3).toString('hex')}`, alt }: MediaOptions = {},
): Promise<MediaItem> {
  const response = await uploadMedia(app, headers, await solidImage(width, Math.round(width / 2), 'png', colour))
  if (response.statusCode !== 201) throw new Error(`uploadMedia: ${response.statusCode} ${response.body}`)
  const item = response.json().data as MediaItem
  if (alt === undefined) return item
  const updated = await app.inject({ method: 'PATCH', url: `/media/${item.id}`, headers, payload: { alt } })
  if (updated.statusCode !== 200) throw new Error(`updateMedia: ${updated.statusCode} ${updated.body}`)
  return updated.json().data as MediaItem
}

/** How many images rows exist. */
export async function countImages(app: FastifyInstance): Promise<number> {
  return app.services.database.prisma.image.count()
}
