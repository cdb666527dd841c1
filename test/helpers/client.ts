// The API as client teams use it: a client made from the spec the way they make one
// (openapi-typescript types in src/generated/api.ts + openapi-fetch), talking to the app on a
// real port. A change to the spec that breaks such clients breaks these tests' type-check first;
// every response they receive is checked against the spec like any other.
import type { AddressInfo } from 'node:net'
import createClient from 'openapi-fetch'
import type { Test } from 'tap'
import type { paths } from '../../src/generated/api.ts'
import { build } from './build.ts'

export type ApiClient = ReturnType<typeof createClient<paths>>

export async function serve(t: Test) {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const fetch = app.contractFetch()
  /** A client, signed in when given an access token. */
  const client = (accessToken?: string): ApiClient =>
    createClient<paths>({
      baseUrl,
      fetch,
      headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` },
    })
  return { app, client }
}

let counter = 0
/** Registers a fresh account through the typed client; returns its tokens and a signed-in client. */
export async function signUp(client: (token?: string) => ApiClient, label = 'client') {
  const email = `${label}-${process.pid}-${Date.now()}-${counter++}@example.com`
  const password = `pw-${email}`
  const { data, response } = await client().POST('/register', { body: { email, password, name: `Client ${label}` } })
  if (!data) throw new Error(`register failed: ${response.status}`)
  return { email, password, ...data.data, api: client(data.data.accessToken) }
}
