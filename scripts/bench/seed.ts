// The benchmark's data, made over HTTP as clients make it: categories (made by the admin the
// server starts with), one author and published posts of a realistic size filed under them.
export interface Seeded {
  email: string
  password: string
  postIds: string[]
  /** The slugs of the categories made, in order. */
  categorySlugs: string[]
}

/** The admin the benchmark's servers start with (ADMIN_EMAIL/ADMIN_PASSWORD): it makes the categories. */
export const BENCH_ADMIN = { ADMIN_EMAIL: 'bench-admin@example.com', ADMIN_PASSWORD: 'bench-admin-password-1234' }

/**
 * The write budget per account (src/http/limits/write-budget.ts), lifted for every bench server
 * that writes: the seed, the webhook bursts (1 000 comments by 10 writers), the render flood, the
 * list abuse's 100 heavy posts and the abusers' uploads and bodies each write far more than 120 a
 * minute from one account, which is their point. Lifted, not off: each write still pays the
 * budget's upsert, so the figures include its cost. (WRITE_BUDGET_ADMIN follows it.)
 */
export const BENCH_WRITE_BUDGET = { WRITE_BUDGET: '1000000', WRITE_BUDGET_WINDOW_SECONDS: '60' }

/**
 * The comment policy (src/content/comments/comment-policy.ts) for every bench server that writes
 * comments: the webhook bursts (1 000 comments by 10 writers, counting the comment.created events),
 * `npm run bench:shutdown`'s and the soak's clients, each commenting again and again from one new
 * account. With the defaults, first-time moderation would hold every comment of an account with
 * none published (no comment.created: the webhook phase would wait for events that never come,
 * and nothing would reach commentCount), and the 15-second flood interval would refuse all but
 * one comment per account in 15 s (429). Off, so every comment is published at once, as before the
 * policy: the figures then leave out the flood check (two statements: the author's advisory lock,
 * their latest comment) and first-time's published-comment lookup (one), as
 * test/content/comments/round-trips.test.ts says beside its count.
 */
export const BENCH_COMMENTS = { COMMENT_MODERATION: 'off', COMMENT_MIN_INTERVAL_SECONDS: '0' }

async function call(url: string, init: { method: string; body?: unknown; token?: string }) {
  const response = await fetch(url, {
    method: init.method,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const json = (await response.json()) as { data: Record<string, unknown> | null; error: unknown }
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${JSON.stringify(json.error)}`)
  return json.data!
}

/** About 2 KB of prose, in paragraphs. */
const BODY = Array.from({ length: 3 }, () =>
  'A paragraph of a blog post, long enough to look like prose and to weigh what prose weighs. '.repeat(7),
).join('\n\n')

export async function seed(baseUrl: string, posts: number, categories = 5): Promise<Seeded> {
  const admin = await call(`${baseUrl}/login`, {
    method: 'POST',
    body: { email: BENCH_ADMIN.ADMIN_EMAIL, password: BENCH_ADMIN.ADMIN_PASSWORD },
  })
  const categoryIds: string[] = []
  const categorySlugs: string[] = []
  for (let index = 0; index < categories; index++) {
    const category = await call(`${baseUrl}/categories`, {
      method: 'POST',
      token: admin.accessToken as string,
      body: { name: `Bench topic ${index}` },
    })
    categoryIds.push(category.id as string)
    categorySlugs.push(category.slug as string)
  }
  const email = `bench-${Date.now()}@example.com`
  const password = 'bench-password-1234'
  const registered = await call(`${baseUrl}/register`, {
    method: 'POST',
    body: { email, password, name: 'Bench Author' },
  })
  const token = registered.accessToken as string
  const postIds: string[] = []
  for (let index = 0; index < posts; index++) {
    // Each post in one category, every third in a second one too: lists show one or two each.
    const filed = [
      categoryIds[index % categories]!,
      ...(index % 3 === 0 ? [categoryIds[(index + 1) % categories]!] : []),
    ]
    const post = await call(`${baseUrl}/posts`, {
      method: 'POST',
      token,
      body: { title: `Post ${index}`, body: BODY, status: 'published', categoryIds: filed },
    })
    postIds.push(post.id as string)
  }
  return { email, password, postIds, categorySlugs }
}
