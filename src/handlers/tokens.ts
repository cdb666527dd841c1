// Tag `tokens`: API tokens, each user's own and, for admins, everyone's. Only a person signed in
// with a password manages them (the spec lists no `apiToken` requirement here): a token cannot
// make, list or revoke tokens.
import { sessionOf } from '../auth/principal.ts'
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'
import { NO_STORE } from '../http/headers/caching.ts'

export const listApiTokens: OperationHandler<'listApiTokens'> = async (request) => {
  const { tokens, page: pageMeta } = await request.server.services.apiTokens.listOwn(
    sessionOf(request.principal!),
    request.query,
  )
  return page(request, tokens, pageMeta)
}

export const createApiToken: OperationHandler<'createApiToken'> = async (request, reply) => {
  const created = await request.server.services.apiTokens.create(sessionOf(request.principal!), request.body)
  reply.code(201).header('cache-control', NO_STORE)
  return success(request, created)
}

export const revokeApiToken: OperationHandler<'revokeApiToken'> = async (request, reply) => {
  await request.server.services.apiTokens.revokeOwn(sessionOf(request.principal!), request.params.id)
  reply.code(204)
  return undefined
}

export const listAllApiTokens: OperationHandler<'listAllApiTokens'> = async (request) => {
  sessionOf(request.principal!)
  const { tokens, page: pageMeta } = await request.server.services.apiTokens.listAll(request.query)
  return page(request, tokens, pageMeta)
}

export const revokeAnyApiToken: OperationHandler<'revokeAnyApiToken'> = async (request, reply) => {
  sessionOf(request.principal!)
  await request.server.services.apiTokens.revokeAny(request.params.id)
  reply.code(204)
  return undefined
}
