// A test file whose tests all passed but whose process does not exit is reported by tap only as a
// timeout, with nothing that says what kept it alive. Once the file's last test has ended, this
// prints what is still open if the process is still there a while later: evidence for the next
// person, never a verdict (the timer is unref'd, so it cannot keep the process alive itself).
import type { Socket } from 'node:net'
import t from 'tap'

const REPORT_AFTER_MS = 30_000

type Handle = { constructor: { name: string } } & Partial<Pick<Socket, 'remoteAddress' | 'remotePort' | 'localPort'>>

function describe(handle: Handle): string {
  const name = handle.constructor.name
  return handle.remotePort === undefined ? name : `${name} → ${handle.remoteAddress}:${handle.remotePort}`
}

export function reportOpenHandlesAtExit() {
  t.teardown(() => {
    setTimeout(() => {
      const handles = (process as unknown as { _getActiveHandles(): Handle[] })._getActiveHandles()
      process.stderr.write(
        `\n# still running ${REPORT_AFTER_MS / 1000} s after its last test ended; open: ` +
          `${JSON.stringify(process.getActiveResourcesInfo())}; handles: ${handles.map(describe).join(', ')}\n`,
      )
    }, REPORT_AFTER_MS).unref()
  })
}
