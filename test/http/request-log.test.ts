// request.log: each line a request writes names its request id, its children's lines too, and
// lines below the configured level are dropped (src/http/request-log.ts makes the logger lazily).
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import type { HandlerMap } from '../../src/http/operations.ts'
import { build } from '../helpers/build.ts'

t.test('lines at the level and above carry the request id, children add their bindings', async (t) => {
  const lines: Record<string, unknown>[] = []
  const levels: string[] = []
  const ping: HandlerMap['ping'] = async (request, reply) => {
    levels.push(request.log.level)
    request.log.info('below the level')
    request.log.warn({ detail: 1 }, 'at the level')
    request.log.child({ part: 'child' }).error('from a child')
    request.log.child({ part: 'trace child' }).trace('below the level, from a child')
    return handlers.ping(request, reply)
  }
  const app = await build(
    t,
    { LOG_LEVEL: 'warn' },
    { logDestination: { write: (line) => void lines.push(JSON.parse(line)) }, handlers: { ping } },
  )
  const response = await app.inject({ method: 'GET', url: '/ping', headers: { 'x-request-id': 'log-lazy' } })
  t.equal(response.statusCode, 200)
  t.same(levels, ['warn'], 'the request logger has the app level')
  const ofRequest = lines.filter((line) => line.reqId === 'log-lazy')
  t.same(
    ofRequest.map((line) => line.msg),
    ['at the level', 'from a child'],
    'only lines at the level or above, each with the request id',
  )
  t.match(ofRequest[0], { level: 40, detail: 1 })
  t.match(ofRequest[1], { level: 50, part: 'child' })
  t.notOk(
    lines.some((line) => String(line.msg).includes('below the level')),
    'nothing below the level',
  )
})
