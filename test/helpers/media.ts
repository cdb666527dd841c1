// Media items made the way clients make them: uploaded over HTTP as multipart.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { multipartBody, solidImage } from './images.ts'

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
