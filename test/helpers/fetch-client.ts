// Run as a process of its own by fetch-process.ts: performs the requests it is given (JSON on
// stdin) one after another with Node's fetch, and prints what each received (JSON on stdout).
import type { FetchCase, FetchResult } from './fetch-process.ts'

function bodyOf(spec: FetchCase['body']): {
  body: RequestInit['body']
  headers: Record<string, string>
  duplex?: 'half'
} {
  const bytes = Buffer.alloc(spec.size, 0xab)
  if (spec.kind === 'blob') return { body: new Blob([bytes], { type: spec.type }), headers: {} }
  const form = new FormData()
  form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'photo.jpg')
  if (spec.kind === 'form') return { body: form, headers: {} }
  // The same form as a stream of unknown length: sent chunked, without Content-Length.
  const encoded = new Response(form)
  return { body: encoded.body!, headers: { 'content-type': encoded.headers.get('content-type')! }, duplex: 'half' }
}

async function perform(request: FetchCase): Promise<FetchResult> {
  const { body, headers, duplex } = bodyOf(request.body)
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { ...request.headers, ...headers },
      body,
      ...(duplex ? { duplex } : {}),
    } as RequestInit)
    const text = Buffer.from(await response.arrayBuffer()).toString('base64')
    return { status: response.status, headers: Object.fromEntries(response.headers), body: text, error: null }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return {
      status: null,
      headers: {},
      body: '',
      error: `${(error as Error).message}: ${cause?.code ?? cause?.message ?? 'no cause'}`,
    }
  }
}

let input = ''
for await (const chunk of process.stdin) input += String(chunk)
const results: FetchResult[] = []
for (const request of JSON.parse(input) as FetchCase[]) results.push(await perform(request))
process.stdout.write(JSON.stringify(results))
