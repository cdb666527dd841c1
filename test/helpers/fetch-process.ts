// Node's fetch (undici, what generated SDKs use) as a client in a process of its own. In the
// server's own process, fetch and the server take turns on one event loop, so a body is mostly
// written before the server gets to answer; a real client keeps writing while the server answers
// and closes, which is what early refusals must survive. Answers are checked against the spec.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ContractViolation, makeContractChecker } from './contract.ts'

export interface FetchCase {
  url: string
  method: string
  headers: Record<string, string>
  /**
   * `form`: FormData with one file part named `file` of `size` bytes (Content-Length known);
   * `chunked-form`: the same as a stream (no Content-Length); `blob`: the bytes alone, of `type`.
   */
  body: { kind: 'form' | 'chunked-form'; size: number } | { kind: 'blob'; size: number; type: string }
}

export interface FetchResult {
  /** null when fetch failed (`error` says how). */
  status: number | null
  headers: Record<string, string>
  /** base64 */
  body: string
  error: string | null
}

const CLIENT = fileURLToPath(new URL('./fetch-client.ts', import.meta.url))

export async function fetchFromAnotherProcess(requests: FetchCase[]): Promise<FetchResult[]> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--import=tsx', CLIENT],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    )
    child.stdin!.end(JSON.stringify(requests))
  })
  const results = JSON.parse(output) as FetchResult[]
  const checker = makeContractChecker()
  results.forEach((result, index) => {
    if (result.status === null) return
    const url = new URL(requests[index]!.url)
    const problems = checker.checkResponse({
      method: requests[index]!.method,
      url: url.pathname + url.search,
      status: result.status,
      headers: result.headers,
      body: Buffer.from(result.body, 'base64'),
    })
    if (problems.length > 0) throw new ContractViolation(problems)
  })
  return results
}
