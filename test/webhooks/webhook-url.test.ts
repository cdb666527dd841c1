// A refused webhook URL names the rule that refused it, never the address its name resolved to
// (an address inside the service's network is not the caller's to learn); the log has the address.
// Without the app: checkWebhookUrl with a resolver and a log of its own.
import t from 'tap'
import { ApiError } from '../../src/errors/api-error.ts'
import { checkWebhookUrl } from '../../src/webhooks/webhook-url.ts'

t.test('the refusal names the rule; the address goes to the log', async (t) => {
  const lines: object[] = []
  const log = { info: (fields: object) => void lines.push(fields), warn: () => {}, error: () => {} }
  const policy = { allowPrivateNetworks: false, resolve: async () => ['93.184.216.34', '10.20.30.40'], log }
  const refusal = await checkWebhookUrl('https://hooks.example/hook', policy).then(
    () => null,
    (error: unknown) => error,
  )
  t.ok(refusal instanceof ApiError, 'refused')
  const answer = JSON.stringify((refusal as ApiError).details)
  t.same((refusal as ApiError).details, [
    { path: '/body/url', message: 'resolves to an address in a refused block: Private-Use, RFC 1918' },
  ])
  t.notMatch(answer, /10\.20\.30\.40/, 'the answer does not carry the address')
  t.same(lines, [{ host: 'hooks.example', address: '10.20.30.40', rule: 'Private-Use, RFC 1918' }], 'the log does')
})
