// Hooks the contract checker into a test app: what every handler returns, every response to
// app.inject and every response the typed client fetches. A violation rejects that call, so the
// test that made it fails with the list of problems.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { handlers as realHandlers } from '../../src/handlers/index.ts'
import type { HandlerMap } from '../../src/http/operations.ts'
import { ContractViolation, makeContractChecker, type ContractChecker, type SeenResponse } from './contract.ts'

type AnyHandler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

export function watchContract(checker: ContractChecker = makeContractChecker()) {
  // What a handler got wrong, by request id, until the response to that request is checked.
  const handlerProblems = new Map<string, string[]>()

  function verify(seen: SeenResponse) {
    const id = seen.headers['x-request-id']
    const earlier = typeof id === 'string' ? (handlerProblems.get(id) ?? []) : []
    if (typeof id === 'string') handlerProblems.delete(id)
    const problems = [...earlier, ...checker.checkResponse(seen)]
    if (problems.length > 0) throw new ContractViolation(problems)
  }

  return {
    /** The handler map for buildApp: the real handlers (or a test's replacements), each checked. */
    handlers(overrides: Partial<HandlerMap> = {}): HandlerMap {
      const all = Object.entries({ ...realHandlers, ...overrides }) as [string, AnyHandler][]
      return Object.fromEntries(
        all.map(([operationId, handler]) => [
          operationId,
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const value = await handler.call(this, request, reply)
            const problems = checker.checkHandlerResult(operationId, reply.statusCode, value)
            if (problems.length > 0) handlerProblems.set(request.id, problems)
            return value
          },
        ]),
      ) as unknown as HandlerMap
    },

    /** Replaces app.inject with one that checks each response before the test sees it. */
    inject(app: FastifyInstance) {
      const inject = app.inject.bind(app) as (
        options: unknown,
      ) => Promise<Awaited<ReturnType<FastifyInstance['inject']>>>
      const checked = async (options: unknown) => {
        const response = await inject(options)
        const { req } = response.raw
        verify({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          status: response.statusCode,
          headers: response.headers,
          body: response.rawPayload,
        })
        return response
      }
      ;(app as { inject: unknown }).inject = checked
    },

    /** A fetch for clients on a real port that checks each response before handing it over. */
    fetch(base: typeof fetch = globalThis.fetch): typeof fetch {
      return async (input, init) => {
        const request = new Request(input, init)
        const response = await base(request)
        const url = new URL(request.url)
        const body = Buffer.from(await response.clone().arrayBuffer())
        verify({
          method: request.method,
          url: url.pathname + url.search,
          status: response.status,
          headers: Object.fromEntries(response.headers),
          body,
        })
        return response
      }
    },
  }
}
