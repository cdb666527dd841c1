// The server's memory as the benchmark reports it, read the way bench:soak reads it: RSS from
// /proc (Linux), heap from the server's own /metrics.
import { readFileSync } from 'node:fs'

const mib = (bytes: number) => Math.round(bytes / 104857.6) / 10

/** The process's resident set now, in MiB. */
export function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return mib(kib * 1024)
}

export interface Memory {
  rssMiB: number
  heapUsedMiB: number
}

export async function readMemory(pid: number, baseUrl: string): Promise<Memory> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text()
  const heapUsed = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1])
  return { rssMiB: rssMiB(pid), heapUsedMiB: mib(heapUsed) }
}

/** Samples the RSS every `everyMs` until stopped; `stop` returns the highest sample. */
export function watchPeakRss(pid: number, everyMs = 100) {
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid))
    } catch {
      // the process ended; the peak so far stands
    }
  }, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return peak
    },
  }
}
