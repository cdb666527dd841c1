// The rules of who may see and change posts and comments (src/content/posts/visibility.ts), as plain
// functions: every role against every status, in milliseconds. The rights tables over HTTP
// (test/content/posts/rights.test.ts, test/content/comments/rights.test.ts) prove the operations apply them.
import t from 'tap'
import {
  canDeleteComment,
  canEdit,
  canEditComment,
  canSee,
  canSeeComment,
  editableBy,
  listScope,
  lockForEdit,
} from '../../../src/content/posts/visibility.ts'
import type { Principal } from '../../../src/auth/principal.ts'

const author: Principal = { userId: 'author', role: 'user', sessionId: 's1', emailVerified: true }
const stranger: Principal = { userId: 'stranger', role: 'user', sessionId: 's2', emailVerified: true }
const admin: Principal = { userId: 'admin', role: 'admin', sessionId: 's3', emailVerified: true }
const callers = { anonymous: null, author, stranger, admin }
type Caller = keyof typeof callers

const STATUSES = ['draft', 'scheduled', 'published'] as const
const post = (status: (typeof STATUSES)[number]) => ({ authorId: 'author', status })

/** What each caller may do with a post of each status: see it, change it. */
const RIGHTS: Record<Caller, Record<(typeof STATUSES)[number], 'none' | 'see' | 'change'>> = {
  anonymous: { draft: 'none', scheduled: 'none', published: 'see' },
  stranger: { draft: 'none', scheduled: 'none', published: 'see' },
  author: { draft: 'change', scheduled: 'change', published: 'change' },
  admin: { draft: 'change', scheduled: 'change', published: 'change' },
}

/** The refusal a function threw, as status and code; 'allowed' when it threw none. */
async function outcome(run: () => unknown): Promise<string> {
  try {
    await run()
    return 'allowed'
  } catch (error) {
    const { statusCode, code } = error as { statusCode: number; code: string }
    return `${statusCode} ${code}`
  }
}

t.test('posts: drafts and scheduled posts exist for their author and admins only', async (t) => {
  for (const [name, caller] of Object.entries(callers) as [Caller, Principal | null][]) {
    for (const status of STATUSES) {
      const right = RIGHTS[name][status]
      t.equal(
        canSee(caller, post(status)),
        right !== 'none',
        `${name} ${right === 'none' ? 'cannot see' : 'sees'} a ${status} post`,
      )
      if (caller !== null)
        t.equal(
          canEdit(caller, post(status)),
          right === 'change',
          `${name} ${right === 'change' ? 'may' : 'may not'} change a ${status} post`,
        )
    }
  }
})

t.test('a write is refused 404 before 403: a post the caller cannot see is not revealed', async (t) => {
  const expected = { none: '404 POST_NOT_FOUND', see: '403 FORBIDDEN', change: 'allowed' }
  for (const name of ['author', 'stranger', 'admin'] as const) {
    for (const status of STATUSES) {
      t.equal(
        await outcome(() => editableBy(callers[name], post(status))),
        expected[RIGHTS[name][status]],
        `${name}, ${status} post`,
      )
    }
  }
  t.equal(
    await outcome(() => editableBy(admin, null)),
    '404 POST_NOT_FOUND',
    'a post that does not exist: 404, even to an admin',
  )
})

t.test('lockForEdit locks first, then judges the post as locked', async (t) => {
  const locked: string[] = []
  const write = (status: (typeof STATUSES)[number] | null) => ({
    lock: async (id: string) => {
      locked.push(id)
      return status === null ? null : post(status)
    },
  })
  t.equal(await outcome(() => lockForEdit(write('draft'), stranger, 'p1')), '404 POST_NOT_FOUND')
  t.equal(await outcome(() => lockForEdit(write('published'), stranger, 'p2')), '403 FORBIDDEN')
  t.equal(await outcome(() => lockForEdit(write(null), author, 'p3')), '404 POST_NOT_FOUND')
  t.same(await lockForEdit(write('scheduled'), author, 'p4'), post('scheduled'), 'the locked post, to its author')
  t.same(locked, ['p1', 'p2', 'p3', 'p4'], 'every write took the lock before its verdict')
})

t.test('lists: unpublished posts only as far as the caller may see them', async (t) => {
  for (const status of STATUSES) {
    t.same(
      listScope(null, status, undefined),
      status === 'published' ? { authorId: undefined } : null,
      `anonymous, ${status}`,
    )
    t.same(listScope(admin, status, 'author'), { authorId: 'author' }, `admin, ${status}, any author's`)
    t.same(listScope(admin, status, undefined), { authorId: undefined }, `admin, ${status}, everyone's`)
  }
  t.same(listScope(stranger, 'published', 'author'), { authorId: 'author' }, "another author's published posts")
  for (const status of ['draft', 'scheduled'] as const) {
    t.same(listScope(author, status, undefined), { authorId: 'author' }, `a user's ${status} list is their own`)
    t.same(listScope(author, status, 'author'), { authorId: 'author' }, `and filtering by themselves keeps it so`)
    t.equal(listScope(stranger, status, 'author'), null, `another user's ${status} posts: an empty list`)
  }
})

t.test(
  'comments: seen with their post; edited by their author; deleted by it, the post author or an admin',
  async (t) => {
    const commenter: Principal = { userId: 'commenter', role: 'user', sessionId: 's4', emailVerified: true }
    const comment = (status: (typeof STATUSES)[number]) => ({ authorId: 'commenter', post: post(status) })
    for (const status of STATUSES) {
      t.equal(canSeeComment(null, comment(status)), status === 'published', `anonymous, comment on a ${status} post`)
      t.equal(canSeeComment(author, comment(status)), true, `the post's author, comment on a ${status} post`)
      t.equal(canSeeComment(admin, comment(status)), true, `an admin, comment on a ${status} post`)
      t.equal(
        canSeeComment(stranger, comment(status)),
        status === 'published',
        `another user, comment on a ${status} post`,
      )
      t.equal(
        canSeeComment(commenter, comment(status)),
        status === 'published',
        `its own author, comment on a ${status} post`,
      )
    }
    const may = { commenter, author, stranger, admin }
    const EDIT = { commenter: true, author: false, stranger: false, admin: false }
    const DELETE = { commenter: true, author: true, stranger: false, admin: true }
    for (const [name, caller] of Object.entries(may) as [keyof typeof may, Principal][]) {
      t.equal(
        canEditComment(caller, comment('published')),
        EDIT[name],
        `${name} ${EDIT[name] ? 'may' : 'may not'} edit the comment`,
      )
      t.equal(
        canDeleteComment(caller, comment('published')),
        DELETE[name],
        `${name} ${DELETE[name] ? 'may' : 'may not'} delete the comment`,
      )
    }
  },
)
