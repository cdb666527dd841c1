// @hey-api/openapi-ts: types, SDK functions and its fetch client.
import { createClient } from '@hey-api/openapi-ts'
import type { Generator } from './generator.ts'

export const heyApi: Generator = {
  name: '@hey-api/openapi-ts',
  key: 'hey-api',
  async generate(spec, dir) {
    await createClient({
      input: spec,
      output: dir,
      plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
      logs: { file: false },
    })
  },
  module: 'index.ts',
  ownNames: /^(Options|ClientOptions)$/,
  // The SDK function, and the types of its arguments and answers.
  operationNames: (id, Id) => new RegExp(`^(${id}|${Id}(Data|Error|Errors|Response|Responses))$`),
  // Each webhook's body (an alias of its named schema) and request, and the union of the requests.
  webhookNames: (Key) => new RegExp(`^(${Key}Webhook(Payload|Request)|Webhooks)$`),
}
