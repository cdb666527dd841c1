// A post's revisions as clients read them (listPostRevisions, getPostRevision) and restore them.
import type { FastifyInstance } from 'fastify'

export interface ListedRevision {
  id: string
  number: number
  changed: string[]
  title: string
  editor: { id: string; name: string } | null
}

/** Every revision of the post, newest first, following the cursor through every page. */
export async function revisionsOf(
  app: FastifyInstance,
  postId: string,
  headers: Record<string, string>,
  limit = 100,
): Promise<ListedRevision[]> {
  const all: ListedRevision[] = []
  let cursor: string | null = null
  do {
    const query: string = `limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`
    const response = await app.inject({ method: 'GET', url: `/posts/${postId}/revisions?${query}`, headers })
    if (response.statusCode !== 200) throw new Error(`listPostRevisions: ${response.statusCode} ${response.body}`)
    const body = response.json()
    all.push(...body.data)
    cursor = body.meta.page.nextCursor
  } while (cursor !== null)
  return all
}

export const restore = (app: FastifyInstance, postId: string, revisionId: string, headers: Record<string, string>) =>
  app.inject({ method: 'POST', url: `/posts/${postId}/revisions/${revisionId}/restore`, headers })

/** The revision rows of a post in the database, by number: what the API no longer shows too. */
export const revisionRows = (app: FastifyInstance, postId: string) =>
  app.services.database.prisma.$queryRaw<{ number: number; status: string }[]>`
    select number, status::text as status from post_revisions where post_id = ${postId}::uuid order by number`
