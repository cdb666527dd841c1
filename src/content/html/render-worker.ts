// The renderer's worker thread (see post-html.ts): Markdown to sanitized HTML, off the event loop.
import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'
import { workerData } from 'node:worker_threads'
import { renderMarkdown } from './markdown.ts'
import type { RenderResult } from './limits.ts'
import type { BodyMedia } from './body-media.ts'

// The large lane's thread yields the CPU to the thread that serves requests and to the small lane:
// on two shared cores, a flood of long bodies would otherwise take a core from everyone's writes.
// Linux gives each thread its own nice value (its id read from /proc/thread-self); a thread may
// lower its own priority without privileges. Elsewhere the thread keeps the process's.
const nice = (workerData as { nice?: number } | undefined)?.nice
if (nice !== undefined) {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').at(-1))
    // Relative to the process's own: an operator's `nice npm start` is kept, never undone.
    setPriority(thread, Math.min(19, getPriority(thread) + nice))
  } catch {
    // not Linux: the lanes' fair turns still hold, only the CPU is shared evenly
  }
}

export default ({ body, media }: { body: string; media?: BodyMedia }): RenderResult =>
  renderMarkdown(body, undefined, media)
