// The bare write peer of `npm run bench -- writes` (scripts/bench/write-peer.ts) runs the very
// statements our server runs for createComment, createPost and updatePost, in the same order and
// the same transactions, and answers alike: each write sent once to each (the same database, the
// same account), our server's statements counted in-process (test/helpers/statements.ts), the
// peer's as it traces them (PEER_TRACE). A write whose statements change fails here until the peer
// follows: its figure would no longer compare equal work.
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, testConfig, usingPostgres } from '../helpers/build.ts'
import { createCategory } from '../helpers/content.ts'
import { createPost } from '../helpers/posts.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { statementsOf } from '../helpers/statements.ts'
import { startWritePeer } from '../../scripts/bench/writes.ts'

/** White space aside: the peer's statements are written out, ours come from Prisma and template literals. */
const text = (statement: string) => statement.replace(/\s+/g, ' ').trim()
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g
/** An answer with its ids, times and labels (`ours`, `peer`) aside. */
const comparable = (body: string) =>
  body.replace(UUID, '<id>').replace(TIME, '<time>').replaceAll('ours', '<side>').replaceAll('peer', '<side>')

t.test(
  'the write peer sends our statements and answers alike',
  { skip: usingPostgres ? false : 'the peer runs on PostgreSQL' },
  async (t) => {
    const databaseUrl = await createScratchDatabase(t, 'write_peer')
    const server = await build(t, { DATABASE_URL: databaseUrl }, { jobs: { pollingIntervalSeconds: 60 } })
    const config = testConfig({ DATABASE_URL: databaseUrl })
    const peer = await startWritePeer({
      PEER_DATABASE_URL: databaseUrl,
      PEER_POOL_MAX: '2',
      PEER_JWT_SECRET: config.jwtSecret,
      PEER_WRITE_BUDGET: String(config.writeBudget),
      PEER_WRITE_BUDGET_WINDOW_SECONDS: String(config.writeBudgetWindowSeconds),
      PEER_DATABASE_TIMEOUT_MS: String(config.databaseTimeoutMs),
      PEER_REVISIONS_MAX: String(config.postRevisionsMax),
      PEER_REVISIONS_MAX_BYTES: String(config.postRevisionsMaxBytes),
      PEER_TRACE: '1',
    })
    t.teardown(() => peer.stop())
    const admin = await registerAdmin(server)
    const categoryIds = [(await createCategory(server, admin)).id, (await createCategory(server, admin)).id]
    const author = await registerUser(server, 'author')
    const reader = await registerUser(server, 'reader')
    const prose = 'A paragraph of a blog post, long enough to look like prose.'
    const post = async (label: string) =>
      (await createPost(server, author, { title: `A post ${label}`, body: prose, status: 'published', categoryIds })).id

    const writes = {
      createComment: async (side: string, round: number) => ({
        method: 'POST' as const,
        url: `/posts/${await post(`${round} ${side}`)}/comments`,
        account: reader,
        payload: { body: `A comment ${round} from the ${side}.` },
      }),
      createPost: async (side: string, round: number) => ({
        method: 'POST' as const,
        url: '/posts',
        account: author,
        payload: { title: `Post ${round} ${side}`, body: `${side}.\n\n${prose}`, status: 'published', categoryIds },
      }),
      updatePost: async (side: string, round: number) => ({
        method: 'PATCH' as const,
        url: `/posts/${await post(`${round} ${side}`)}`,
        account: author,
        payload: { body: `Edit ${round} by the ${side}.\n\n${prose}` },
      }),
    }
    for (const [kind, write] of Object.entries(writes)) {
      // Round 0 warms both sides (Prisma's first query of a kind); round 1 is compared.
      for (const round of [0, 1]) {
        const ours = await write('ours', round)
        let oursAnswer: { statusCode: number; body: string } | undefined
        const counted = await statementsOf(async () => {
          oursAnswer = await server.inject({
            method: ours.method,
            url: ours.url,
            headers: ours.account.auth,
            payload: ours.payload,
          })
        })
        const theirs = await write('peer', round)
        const peerAnswer = await fetch(`${peer.url}${theirs.url}`, {
          method: theirs.method,
          headers: { ...theirs.account.auth, 'content-type': 'application/json' },
          body: JSON.stringify(theirs.payload),
        })
        const peerBody = await peerAnswer.text()
        const traced = (await (await fetch(`${peer.url}/trace`)).json()) as { data: string[] }
        if (round === 0) continue
        t.same(traced.data.map(text), counted.texts.map(text), `${kind}: the same statements`)
        t.equal(peerAnswer.status, oursAnswer!.statusCode, `${kind}: the same status`)
        t.equal(comparable(peerBody), comparable(oursAnswer!.body), `${kind}: the same answer`)
      }
    }
  },
)
