// The lists' generation check on a busy instance that hears no NOTIFY (its listener left out), so
// that the check alone stands between it and a stale page: its generation reads are shared by the
// requests of one turn (src/db/read-after-arrival.ts) and each takes 40 ms more after its snapshot
// (a slow round trip), while six loops keep cached list requests coming, so that reads started
// before a write committed are in flight when the request after the write's answer arrives. That
// request must see the write. A read shared with whatever is in flight fails this test (stale pages).
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { readAfterArrival } from '../../../../src/db/read-after-arrival.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'

const slowReads = <T>(read: () => Promise<T>) =>
  readAfterArrival(() => read().then(async (value) => (await sleep(40), value)))
const ROUNDS = 20

t.test(
  'a busy instance that hears no NOTIFY still shows a write answered before the request',
  { skip: usingPostgres ? false : 'two instances share one database on PostgreSQL only' },
  async (t) => {
    const { build: buildReader } = await t.mockImport<typeof import('../../../helpers/build.ts')>(
      '../../../helpers/build.ts',
      {
        '../../../../src/db/read-after-arrival.ts': { readAfterArrival: slowReads },
        '../../../../src/services/notifications.ts': { listenForWrites: () => null },
      },
    )
    const url = await createScratchDatabase(t, 'generation_under_load')
    const writer = await build(t, { DATABASE_URL: url })
    const reader = await buildReader(t, { DATABASE_URL: url })
    const author = await registerUser(writer)
    const post = await createPost(writer, author, { status: 'published', title: 't0' })
    const firstTitle = async () =>
      (await reader.inject({ method: 'GET', url: '/posts?limit=1' })).json().data[0].title as string
    let busy = true
    let background = 0
    const loop = async () => {
      while (busy) {
        await firstTitle()
        background++
        await sleep(Math.random() * 10)
      }
    }
    const loops = Array.from({ length: 6 }, loop)
    const stale: string[] = []
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await sleep(30)
        const edit = await writer.inject({
          method: 'PATCH',
          url: `/posts/${post.id}`,
          headers: author.auth,
          payload: { title: `t${round}` },
        })
        t.equal(edit.statusCode, 200, `round ${round}: edited`)
        const seen = await firstTitle()
        if (seen !== `t${round}`) stale.push(`round ${round}: ${seen}`)
      }
    } finally {
      busy = false
      await Promise.all(loops)
    }
    t.ok(background > ROUNDS, `${background} background reads kept generation reads in flight`)
    t.same(stale, [], 'every read after an answered write showed it')
  },
)
