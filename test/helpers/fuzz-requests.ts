// Requests for the fuzz test (test/contract/fuzz.test.ts), one operation at a time, generated from
// the operation's own parameters and request body in the spec: half keep to the schemas, half are
// mutated in one place (a parameter, the body, its media type, the method, the token). Values the
// test made (ids that exist, credentials, tokens) come in as hints, so requests reach the handlers
// and not only the validator.
import fc from 'fast-check'
import type { OperationSpec, SpecOperation } from '../../src/spec.ts'
import { hostileString, makeValid, wrongFor, type Hints } from './fuzz-values.ts'
import { multipartBody } from './images.ts'
import type { Json } from './spec-schemas.ts'
import { signToken, unsignedToken } from './tokens.ts'

/** Who sends it: an account of the test's, nobody, or a token no client should have. */
export type Caller = 'anonymous' | 'author' | 'other' | 'admin' | 'token'

export interface Plan {
  operationId: string
  method: string
  /** The spec's path, and the values of its parameters (URL-encoded when sent). */
  template: string
  pathValues: Record<string, string>
  query: [string, string][]
  headers: Record<string, string>
  caller: Caller
  /** The Authorization header when `caller` is `token`. */
  token?: string
  /** A JSON body as a value, or the body's exact bytes (`raw` wins). */
  json?: unknown
  raw?: string | Buffer
  contentType?: string
  via: 'inject' | 'fetch'
  /** `valid`, or which mutation was applied. */
  label: string
}

export interface Pools {
  hints: Hints
  /** Image files that decode (several formats), and files that should be refused. */
  images: Buffer[]
  badFiles: Buffer[]
}

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required?: boolean
  schema: Json
  /** The hint key: the component's name for path ids (PostId, CommentId, …), else the name. */
  hint: string
}

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'] as const
const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength })

function parametersOf(operation: OperationSpec, deref: (node: Json) => Json): Parameter[] {
  return ((operation.parameters ?? []) as Json[]).map((node) => {
    const parameter = deref(node) as unknown as Parameter
    const ref = node.$ref as string | undefined
    return { ...parameter, hint: parameter.in === 'path' && ref ? ref.split('/').at(-1)! : parameter.name }
  })
}

// As a client's URL encoder would: a lone surrogate cannot be sent, it becomes U+FFFD.
const encode = (value: string) => encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'))

/** The request's path and query, encoded as a client would. */
export function urlOf(plan: Plan): string {
  const path = plan.template.replace(/\{([^}]+)\}/g, (_, name: string) => encode(plan.pathValues[name] ?? ''))
  const query = plan.query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')
  return query ? `${path}?${query}` : path
}

const stringify = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * The request arbitrary for one operation. `pathMethods` are the methods the spec has for its path
 * (a method mutation picks another one).
 */
export function requestsFor(
  entry: SpecOperation,
  pathMethods: string[],
  deref: (node: Json) => Json,
  pools: Pools,
): fc.Arbitrary<Plan> {
  const { operation, method, path } = entry
  const valid = makeValid(deref, pools.hints)
  const parameters = parametersOf(operation, deref)
  const inPart = (part: Parameter['in']) => parameters.filter((parameter) => parameter.in === part)
  const content = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>
  const jsonSchema = content['application/json']?.schema as Json | undefined
  const isUpload = 'multipart/form-data' in content
  const bodyRequired = Boolean((operation.requestBody as Json | undefined)?.required)

  const partArbitrary = (part: Parameter['in']) => {
    const list = inPart(part)
    // Header values are visible ASCII on the wire (a client cannot send others).
    const headerValue = (parameter: Parameter) => {
      const ascii = fc.string({
        unit: 'grapheme-ascii',
        minLength: (parameter.schema.minLength as number) ?? 0,
        maxLength: (parameter.schema.maxLength as number) ?? 200,
      })
      const known = pools.hints[parameter.hint] ?? []
      return known.length > 0 ? fc.oneof(fc.constantFrom(...known), ascii) : ascii
    }
    const record = Object.fromEntries(
      list.map((parameter) => [
        parameter.name,
        part === 'header' ? headerValue(parameter) : valid(parameter.schema, parameter.hint).map(String),
      ]),
    )
    return fc.record(record, {
      requiredKeys: list.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    }) as fc.Arbitrary<Record<string, string>>
  }
  const file = fc.constantFrom(...pools.images)
  const body: fc.Arbitrary<Partial<Plan>> = jsonSchema
    ? (bodyRequired ? valid(jsonSchema) : fc.option(valid(jsonSchema), { nil: undefined })).map((json) =>
        json === undefined ? {} : { json, contentType: 'application/json' },
      )
    : isUpload
      ? fc
          .tuple(file, fc.constantFrom('image/jpeg', 'image/png', 'application/octet-stream'))
          .map(([data, type]) => upload([{ name: 'file', data, filename: 'photo.jpg', contentType: type }]))
      : fc.constant({})
  const caller = fc.constantFrom<Caller>('anonymous', 'author', 'author', 'other', 'admin', 'admin')

  const validPlan: fc.Arbitrary<Plan> = fc
    .record({
      pathValues: partArbitrary('path'),
      query: partArbitrary('query'),
      headers: partArbitrary('header'),
      body,
      caller,
      via: fc.constantFrom<Plan['via']>('inject', 'inject', 'inject', 'fetch'),
    })
    .map(({ pathValues, query, headers, body, caller, via }) => ({
      operationId: operation.operationId,
      method,
      template: path,
      pathValues,
      query: Object.entries(query),
      headers,
      caller,
      via,
      label: 'valid',
      ...body,
    }))

  // Each mutation changes one thing of a valid plan.
  const mutations: ((plan: Plan) => fc.Arbitrary<Plan>)[] = [
    (plan) =>
      badToken().map((token) => ({
        ...plan,
        caller: 'token' as const,
        token: token.value,
        label: `token: ${token.label}`,
      })),
    (plan) =>
      fc
        .constantFrom(
          ...METHODS.filter(
            (other) => !pathMethods.includes(other) && !(other === 'HEAD' && pathMethods.includes('GET')),
          ),
        )
        .map((other) => ({ ...plan, method: other, via: 'inject' as const, label: `method ${other}` })),
    (plan) =>
      fc.oneof(
        {
          weight: 4,
          arbitrary: ascii(30).map((name) => ({
            ...plan,
            query: [...plan.query, [name || 'x', 'y'] as [string, string]],
            label: 'unknown query parameter',
          })),
        },
        // Past what Node's HTTP parser takes (16 KiB of request line and headers): only a real socket sees it.
        {
          weight: 1,
          arbitrary: fc
            .constantFrom<[string, Partial<Plan>]>(
              ['URL over 16 KiB', { query: [...plan.query, ['pad', 'x'.repeat(20_000)]] }],
              ['header over 16 KiB', { headers: { ...plan.headers, 'x-padding': 'x'.repeat(20_000) } }],
            )
            .map(([label, change]) => ({ ...plan, ...change, via: 'fetch' as const, label })),
        },
      ),
  ]
  if (method === 'GET') mutations.push((plan) => fc.constant({ ...plan, method: 'HEAD', label: 'HEAD' }))
  for (const parameter of inPart('path')) {
    mutations.push((plan) =>
      badPathValue(plan.pathValues[parameter.name] ?? '', parameter).map(([value, label]) => ({
        ...plan,
        pathValues: { ...plan.pathValues, [parameter.name]: value },
        label: `path ${parameter.name}: ${label}`,
      })),
    )
  }
  for (const parameter of [...inPart('query'), ...inPart('header')]) {
    mutations.push((plan) =>
      badParameterValue(parameter).map(([values, label]) => {
        const where = parameter.in === 'query' ? 'query' : 'header'
        if (where === 'header')
          return {
            ...plan,
            headers: { ...plan.headers, [parameter.name]: values[0]! },
            label: `header ${parameter.name}: ${label}`,
          }
        return {
          ...plan,
          query: [
            ...plan.query.filter(([name]) => name !== parameter.name),
            ...values.map((value) => [parameter.name, value] as [string, string]),
          ],
          label: `query ${parameter.name}: ${label}`,
        }
      }),
    )
  }
  if (jsonSchema)
    mutations.push((plan) => badJson(deref(jsonSchema), plan, deref).map((change) => ({ ...plan, ...change })))
  if (jsonSchema || isUpload) mutations.push((plan) => badMediaType(plan).map((change) => ({ ...plan, ...change })))
  if (isUpload) mutations.push((plan) => badUpload(pools).map((change) => ({ ...plan, ...change })))
  if (!jsonSchema && !isUpload) {
    // A body sent to an operation that takes none: ignored when JSON or text, refused otherwise.
    mutations.push((plan) =>
      fc
        .tuple(
          fc.constantFrom(
            'application/json',
            'text/plain',
            'application/octet-stream',
            'multipart/form-data; boundary=x',
          ),
          ascii(200),
        )
        .map(([contentType, raw]) => ({
          ...plan,
          contentType,
          raw,
          via: 'inject' as const,
          label: `unexpected body ${contentType}`,
        })),
    )
  }
  const mutated = validPlan.chain((plan) => fc.constantFrom(...mutations).chain((mutate) => mutate(plan)))
  return fc.oneof(validPlan, mutated)
}

function badToken(): fc.Arbitrary<{ value: string; label: string }> {
  const now = Math.floor(Date.now() / 1000)
  const claim = fc.oneof(fc.uuid(), ascii(40), fc.integer(), fc.constant(null))
  return fc.oneof(
    ascii(60).map((value) => ({ value: `Bearer ${value}`, label: 'garbage' })),
    fc
      .constantFrom('Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Bearer ${'a'.repeat(5000)}`)
      .map((value) => ({ value, label: 'malformed header' })),
    fc.constant({ value: `Bearer ${signToken({ claims: { exp: now - 60 } })}`, label: 'expired' }),
    fc.constant({ value: `Bearer ${unsignedToken()}`, label: 'alg none' }),
    fc.constant({
      value: `Bearer ${signToken({ secret: 'another-secret-another-secret-another-1' })}`,
      label: 'wrong secret',
    }),
    fc.record({ sub: claim, sid: claim, role: fc.constantFrom('user', 'admin', 'root') }).map((claims) => ({
      value: `Bearer ${signToken({ claims })}`,
      label: `signed, claims ${JSON.stringify(claims)}`,
    })),
  )
}

function badPathValue(current: string, parameter: Parameter): fc.Arbitrary<[string, string]> {
  return fc.oneof(
    fc.constant([current.toUpperCase(), 'upper case'] as [string, string]),
    fc
      .constantFrom(
        'urn:uuid:' + current,
        `{${current}}`,
        current.replaceAll('-', ''),
        `${current} `,
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '..',
        '%',
        '\u0000',
      )
      .map((value) => [value, 'odd form'] as [string, string]),
    hostileString(parameter.schema.maxLength as number).map((value) => [value, 'hostile'] as [string, string]),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((value) => [value, 'random'] as [string, string]),
  )
}

function badParameterValue(parameter: Parameter): fc.Arbitrary<[string[], string]> {
  const headerSafe = parameter.in === 'header'
  const values = fc.oneof(
    fc
      .constantFrom(
        '',
        '0',
        '-1',
        '101',
        '1.5',
        '1e400',
        'Infinity',
        'NaN',
        'true',
        'null',
        '[]',
        '{}',
        '*',
        'W/"x"',
        '"',
        ',',
        'draft',
        'admin',
      )
      .map((value) => [value]),
    (headerSafe ? ascii(300) : hostileString((parameter.schema.maxLength as number | undefined) ?? 200)).map(
      (value) => [value],
    ),
    fc.array(ascii(10), { minLength: 2, maxLength: 4 }),
  )
  return values.map((list) => [
    list,
    list.length > 1 ? 'repeated' : list[0]!.length > 40 ? `long (${list[0]!.length})` : JSON.stringify(list[0]),
  ])
}

function badJson(schema: Json, plan: Plan, deref: (node: Json) => Json): fc.Arbitrary<Partial<Plan>> {
  const body = (plan.json ?? {}) as Record<string, unknown>
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>).map(
    ([key, node]) => [key, deref(node)] as const,
  )
  const required = (schema.required ?? []) as string[]
  const options: fc.Arbitrary<Partial<Plan>>[] = [
    fc.integer({ min: 1, max: 400 }).map((count) => ({
      json: { ...body, ...Object.fromEntries(Array.from({ length: count }, (_, index) => [`unknown${index}`, index])) },
      label: `body: ${count} unknown properties`,
    })),
    fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json, label: 'body: any JSON value' })),
    fc
      .constantFrom(
        '',
        '{',
        '{"a":',
        'nul',
        '[1,]',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '\ufeff{}',
        '{"a":1}{"b":2}',
        '1e400',
        `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
        `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
      )
      .map((raw) => ({ raw, label: `body: raw ${JSON.stringify(raw.slice(0, 20))}` })),
    fc.constant({
      raw: JSON.stringify({ ...body, pad: 'x'.repeat(1024 * 1024) }),
      label: 'body: over the 1 MiB limit',
    }),
  ]
  if (required.length > 0)
    options.push(
      fc.constantFrom(...required).map((key) => ({
        json: Object.fromEntries(Object.entries(body).filter(([name]) => name !== key)),
        label: `body: without ${key}`,
      })),
    )
  if (properties.length > 0) {
    const property = fc.constantFrom(...properties)
    options.push(
      property.chain(([key, node]) =>
        wrongFor(node).map((value) => ({ json: { ...body, [key]: value }, label: `body: ${key} of another type` })),
      ),
    )
    const strings = properties.filter(
      ([, node]) => node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string')),
    )
    if (strings.length > 0) {
      options.push(
        fc.constantFrom(...strings).chain(([key, node]) =>
          hostileString(node.maxLength as number | undefined).map((value) => ({
            json: { ...body, [key]: value },
            label: `body: ${key} hostile (${value.length} chars${value.length > 20 ? '' : ` ${JSON.stringify(value)}`})`,
          })),
        ),
      )
    }
  }
  return fc.oneof(...options)
}

function badMediaType(plan: Plan): fc.Arbitrary<Partial<Plan>> {
  const raw = plan.raw ?? (plan.json === undefined ? '' : stringify(plan.json))
  return fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'application/json; charset=utf-16le',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/json;;',
      '*/*',
      'application',
      ' ',
      'application/octet-stream',
    )
    .map((contentType) => ({ contentType, raw, label: `media type ${JSON.stringify(contentType)}` }))
}

function upload(parts: Parameters<typeof multipartBody>[0]): Partial<Plan> {
  const { payload, contentType } = multipartBody(parts)
  return { raw: payload, contentType }
}

function badUpload(pools: Pools): fc.Arbitrary<Partial<Plan>> {
  const image = fc.constantFrom(...pools.images)
  const part = (name: string, data: Buffer | string, filename?: string) => ({
    name,
    data,
    filename,
    contentType: 'image/png',
  })
  return fc.oneof(
    fc.constantFrom(...pools.badFiles.keys()).map((index) => ({
      ...upload([part('file', pools.badFiles[index]!, 'x.png')]),
      label: `upload: bad file ${index}`,
    })),
    fc
      .uint8Array({ maxLength: 4096 })
      .map((bytes) => ({ ...upload([part('file', Buffer.from(bytes), 'x.png')]), label: 'upload: random bytes' })),
    fc.tuple(image, fc.double({ min: 0, max: 1, noNaN: true })).map(([data, cut]) => ({
      ...upload([part('file', data.subarray(0, Math.floor(data.length * cut)), 'x.png')]),
      label: 'upload: truncated image',
    })),
    image.map((data) => ({ ...upload([part('image', data, 'x.png')]), label: 'upload: wrong field name' })),
    image.map((data) => ({
      ...upload([part('file', data, 'a.png'), part('file', data, 'b.png')]),
      label: 'upload: two files',
    })),
    image.map((data) => ({
      ...upload([part('note', 'hello'), part('file', data, 'x.png')]),
      label: 'upload: a field before the file',
    })),
    image.map((data) => ({ ...upload([part('file', data)]), label: 'upload: file part without filename' })),
    fc.constant({ ...upload([]), label: 'upload: no parts' }),
    image.map((data) => ({
      raw: multipartBody([part('file', data, 'x.png')]).payload,
      contentType: 'multipart/form-data; boundary=not-the-boundary',
      label: 'upload: wrong boundary',
    })),
    image.map((data) => ({
      raw: multipartBody([part('file', data, 'x.png')]).payload.subarray(0, -10),
      contentType: undefined,
      label: 'upload: cut off, no content type',
    })),
    fc.constant({
      ...upload([part('file', Buffer.alloc(300 * 1024, 1), 'big.png')]),
      label: 'upload: over the upload limit',
    }),
  )
}
