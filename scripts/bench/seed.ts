// The benchmark's data, made over HTTP as clients make it: one author and published posts with
// bodies of a realistic size.
export interface Seeded {
  email: string
  password: string
  postIds: string[]
}

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

const PARAGRAPH = 'A paragraph of a blog post, long enough to look like prose and to weigh what prose weighs. '.repeat(
  8,
)

export async function seed(baseUrl: string, posts: number): Promise<Seeded> {
  const email = `bench-${Date.now()}@example.com`
  const password = 'bench-password-1234'
  const registered = await call(`${baseUrl}/register`, {
    method: 'POST',
    body: { email, password, name: 'Bench Author' },
  })
  const token = registered.accessToken as string
  const postIds: string[] = []
  for (let index = 0; index < posts; index++) {
    const body = Array.from({ length: 5 }, () => PARAGRAPH).join('\n\n')
    const post = await call(`${baseUrl}/posts`, {
      method: 'POST',
      token,
      body: { title: `Post ${index}`, body, status: 'published' },
    })
    postIds.push(post.id as string)
  }
  return { email, password, postIds }
}
