// The benchmark's bare peers, in a process of their own: what node:http alone can do on this
// machine, and node:http with one `pg` query per request. Every figure of `npm run bench` is a
// ratio to one of them, measured in the same run.
//
// - Fixed answers (PEER_FIXED_FILE, a JSON file: path → status, headers, base64 body): the exact
//   bytes our server sent for that path, sent again with no work at all, framed as our server
//   frames them (`content-length`, not chunked).
// - With PEER_DATABASE_URL: GET /posts?limit&cursor&category (a category slug) and GET /posts/{id},
//   each answered with one SQL statement that builds the whole page or post as JSON, in the
//   service's envelope. No validation, no hooks, no cache: the floor of what reading costs.
//
// Prints `{"port": N}` on stdout once listening.
import { readFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import pg from 'pg'
import { decodeCursor, encodeCursor } from '../../src/cursor.ts'

interface FixedAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

const fixed = new Map(
  Object.entries(
    (process.env.PEER_FIXED_FILE ? JSON.parse(readFileSync(process.env.PEER_FIXED_FILE, 'utf8')) : {}) as Record<
      string,
      FixedAnswer
    >,
  ).map(([path, answer]) => {
    const body = Buffer.from(answer.body, 'base64')
    return [path, { status: answer.status, headers: { ...answer.headers, 'content-length': body.length }, body }]
  }),
)

const pool =
  process.env.PEER_DATABASE_URL === undefined
    ? null
    : new pg.Pool({ connectionString: process.env.PEER_DATABASE_URL, max: Number(process.env.PEER_POOL_MAX ?? 10) })

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** A post as the API shows it, built in SQL from `p` (posts) joined with `u` (its author). */
const POST_JSON = `json_build_object(
  'id', p.id, 'title', p.title, 'body', p.body, 'html', coalesce(p.html, ''), 'excerpt', p.excerpt, 'status', p.status,
  'publishedAt', ${iso('p.published_at')},
  'author', json_build_object('id', u.id, 'name', u.name),
  'categories', coalesce((
    select json_agg(json_build_object('id', c.id, 'name', c.name, 'slug', c.slug) order by c.slug)
    from post_categories pc join categories c on c.id = pc.category_id where pc.post_id = p.id), '[]'::json),
  'thumbnail', (
    select json_build_object('sizes', json_agg(json_build_object(
      'width', i.width, 'height', i.height, 'url', '/images/' || i.key, 'contentType', i.content_type) order by i.width))
    from post_thumbnails t join images i on i.key = t.image_key where t.post_id = p.id having count(*) > 0),
  'mediaIds', to_json(array(select pm.media_id from post_media pm where pm.post_id = p.id order by pm.media_id)),
  'commentCount', p.comment_count, 'commentsOpen', p.comments_open, 'createdAt', ${iso('p.created_at')}, 'updatedAt', ${iso('p.updated_at')},
  'slug', p.slug)`

/** One page of published posts, newest first, and the sort key of its last row when more follow. */
const LIST_SQL = `
  with page as (
    select p.*, row_number() over (order by p.published_at desc, p.id desc) as n
    from (
      select p.* from posts p
      where p.status = 'published'
        and ($2::timestamptz is null or (p.published_at, p.id) < ($2, $3::uuid))
        and ($4::text is null or exists (
          select 1 from post_categories pc
          where pc.post_id = p.id and pc.category_id = (select id from categories where slug = $4)))
      order by p.published_at desc, p.id desc
      limit $1 + 1
    ) p
  )
  select coalesce(json_agg(${POST_JSON} order by p.n) filter (where p.n <= $1), '[]'::json)::text as data,
         bool_or(p.n > $1) as more,
         max(p.published_at) filter (where p.n = $1) as last_at,
         (array_agg(p.id) filter (where p.n = $1))[1] as last_id
  from page p join users u on u.id = p.author_id`

const POST_SQL = `select ${POST_JSON}::text as data from posts p join users u on u.id = p.author_id where p.id = $1::uuid`

function send(response: ServerResponse, status: number, body: string) {
  const bytes = Buffer.from(body)
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length })
  response.end(bytes)
}

async function list(query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 20)
  const after = decodeCursor(query.get('cursor') ?? undefined)
  const { rows } = await pool!.query(LIST_SQL, [limit, after?.at ?? null, after?.id ?? null, query.get('category')])
  const row = rows[0] as { data: string; more: boolean | null; last_at: Date | null; last_id: string | null }
  const nextCursor = row.more && row.last_at && row.last_id ? encodeCursor({ at: row.last_at, id: row.last_id }) : null
  return `{"data":${row.data},"error":null,"meta":{"requestId":"peer","page":{"limit":${limit},"nextCursor":${JSON.stringify(nextCursor)}}}}`
}

async function post(id: string) {
  const { rows } = await pool!.query(POST_SQL, [id])
  return rows.length === 0
    ? null
    : `{"data":${(rows[0] as { data: string }).data},"error":null,"meta":{"requestId":"peer"}}`
}

const server = createServer((request, response) => {
  const answer = fixed.get(request.url ?? '')
  if (answer) {
    response.writeHead(answer.status, answer.headers)
    response.end(answer.body)
    return
  }
  const url = new URL(request.url ?? '/', 'http://peer')
  const postId = /^\/posts\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1]
  const work = pool === null ? null : url.pathname === '/posts' ? list(url.searchParams) : postId ? post(postId) : null
  if (work === null) return send(response, 404, '{"data":null,"error":{"code":"NOT_FOUND"},"meta":{}}')
  work.then(
    (body) =>
      body === null
        ? send(response, 404, '{"data":null,"error":{"code":"POST_NOT_FOUND"},"meta":{}}')
        : send(response, 200, body),
    (error: unknown) => send(response, 500, JSON.stringify({ error: String(error) })),
  )
})

server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }))
})
process.on('SIGTERM', () => {
  server.close()
  void pool?.end()
  server.closeAllConnections()
})
