// Posts made the way clients make them: over HTTP.
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'

export interface CreatedPost {
  id: string
  status: string
  [key: string]: unknown
}

export async function createPost(app: FastifyInstance, author: Account, payload: Record<string, unknown> = {}): Promise<CreatedPost> {
  const response = await app.inject({ method: 'POST', url: '/posts', headers: author.auth, payload: { title: 'A title', body: 'Some **Markdown** body.', ...payload } })
  if (response.statusCode !== 201) throw new Error(`createPost: ${response.statusCode} ${response.body}`)
  return response.json().data
}
