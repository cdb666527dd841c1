// Tag `categories`. Admin-only writes are enforced by the spec's scopes before these run.
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const listCategories: OperationHandler<'listCategories'> = async (request) => {
  const { categories, page: pageMeta } = await request.server.services.categories.list(request.query)
  return page(request, categories, pageMeta)
}

export const createCategory: OperationHandler<'createCategory'> = async (request, reply) => {
  const category = await request.server.services.categories.create(request.body)
  reply.code(201)
  return success(request, category)
}

export const updateCategory: OperationHandler<'updateCategory'> = async (request) =>
  success(request, await request.server.services.categories.update(request.params.id, request.body))

export const deleteCategory: OperationHandler<'deleteCategory'> = async (request, reply) => {
  await request.server.services.categories.remove(request.params.id)
  reply.code(204)
  return undefined
}
