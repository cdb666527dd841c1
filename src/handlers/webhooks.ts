// Tag `webhooks`. Admins only: the spec's scopes refuse everyone else before these run.
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const listWebhooks: OperationHandler<'listWebhooks'> = async (request) => {
  const { webhooks, page: pageMeta } = await request.server.services.webhooks.list(request.query)
  return page(request, webhooks, pageMeta)
}

export const createWebhook: OperationHandler<'createWebhook'> = async (request, reply) => {
  const webhook = await request.server.services.webhooks.create(request.body)
  reply.code(201)
  return success(request, webhook)
}

export const updateWebhook: OperationHandler<'updateWebhook'> = async (request) =>
  success(request, await request.server.services.webhooks.update(request.params.id, request.body))

export const deleteWebhook: OperationHandler<'deleteWebhook'> = async (request, reply) => {
  await request.server.services.webhooks.remove(request.params.id)
  reply.code(204)
  return undefined
}

export const listWebhookDeliveries: OperationHandler<'listWebhookDeliveries'> = async (request) => {
  const { deliveries, page: pageMeta } = await request.server.services.webhooks.deliveries(
    request.params.id,
    request.query,
  )
  return page(request, deliveries, pageMeta)
}
