// On PostgreSQL, where instances run as a fleet, an instance without PUBLIC_URL says so at start:
// its feed would link to its own address, and its feed id and ETags would differ from the others'.
import t, { type Test } from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'

const startUpWarnings = async (t: Test, env: Record<string, string>) => {
  const lines: { level: number; msg: string }[] = []
  await build(
    t,
    { LOG_LEVEL: 'warn', ...env },
    { logDestination: { write: (line) => void lines.push(JSON.parse(line)) } },
  )
  return lines.filter((line) => line.msg.startsWith('PUBLIC_URL is not set'))
}

t.test(
  'an instance on PostgreSQL without PUBLIC_URL warns at start; with it, it does not',
  { skip: usingPostgres ? false : 'the embedded database runs one instance: its own address is the one clients use' },
  async (t) => {
    const unset = await startUpWarnings(t, {})
    t.equal(unset.length, 1, 'one warning')
    t.equal(unset[0]?.level, 40, 'at warn')
    t.same(await startUpWarnings(t, { PUBLIC_URL: 'https://blog.example.org' }), [], 'none when set')
  },
)
