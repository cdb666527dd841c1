// The part of the suite whose outcome can differ on the embedded database, which
// `npm run test:embedded` (scripts/test-embedded.ts) runs on PGlite with no DATABASE_URL. CI runs
// the whole suite (`npm test`) on PostgreSQL, the production database, and this on PGlite: running
// all of it twice took CI past its time limit.
//
// What the embedded database changes, and the files that exercise it:
// - its driver adapter, whose errors src/db/errors.ts maps (conflicts, bad input, outages);
// - one connection, on which transactions queue (races and concurrent writes);
// - pg-boss through PGlite's executeSql (every queue and job), LISTEN through pglite.listen;
// - data kept under DATA_DIR between restarts (`npm start` as a newcomer runs it);
// - PostgreSQL 17 in WebAssembly rather than the server's version (the SQL that builds lists,
//   feeds and searches);
// - every operation at least once (the typed-client journeys and a fresh install's examples).
// Files that do not read DATABASE_URL do the same work either way and run once, on PostgreSQL; so
// do files all of whose tests need PostgreSQL (fleets, statement counts), which would skip here.
// test/structure/embedded-run.test.ts checks that every file named here exists.
export const EMBEDDED_RUN: Record<string, string[]> = {
  'driver errors and constraints': [
    'test/db/unavailable.test.ts',
    'test/http/body/bad-input.test.ts',
    'test/content/slugs/slugs.test.ts',
    'test/content/categories/categories.test.ts',
    'test/auth/sessions/auth.test.ts',
    'test/http/system.test.ts',
    // The token's row (its scopes a text[]) read by a raw join through the driver adapter; every
    // rule of API tokens, as the issue asks for both databases.
    'test/auth/api-tokens/lifecycle.test.ts',
    'test/auth/api-tokens/scope-table.test.ts',
    'test/auth/api-tokens/demotion.test.ts',
    'test/auth/api-tokens/checksum.test.ts',
    'test/auth/api-tokens/humans-only.test.ts',
    'test/auth/api-tokens/rate-limit.test.ts',
    // An upload whose object store call fails or times out inside its transaction: the rollback
    // through the adapter (no images row left), with the one connection held meanwhile.
    'test/storage/faults.test.ts',
    // The orphan sweep's `for update skip locked` batch, bytea rows beside s3 ones, and the
    // `on conflict (key) do update` an upload's write makes, through the adapter.
    'test/storage/sweep.test.ts',
  ],
  'one connection: races and concurrent writes': [
    'test/auth/sessions/credential-race.test.ts',
    'test/auth/accounts/delete-account.test.ts',
    'test/auth/accounts/delete-account-race.test.ts',
    'test/content/comments/count.test.ts',
    // The flood check: pg_advisory_xact_lock(hashtextextended(...)) per author in the comment's
    // transaction and the seconds left in float8 from clock_timestamp(); a concurrent burst from one
    // account queues on the one connection, and the second must still see the first. The
    // duplicate check by (post_id, author_id, body_hash). (Its burst to two instances goes to the
    // one instance here.)
    'test/content/comments/flood.test.ts',
    'test/content/posts/category-race.test.ts',
    'test/webhooks/transactions.test.ts',
    // The live-token limit under the owner's row lock; lastUsedAt written once by a burst.
    'test/auth/api-tokens/bounds.test.ts',
    'test/auth/api-tokens/last-used.test.ts',
  ],
  'the queue, its jobs and LISTEN (pglite.listen wakes the webhook workers)': [
    'test/queue/schedules.test.ts',
    'test/queue/shutdown.test.ts',
    'test/jobs/account-email.test.ts',
    'test/jobs/clean-up-accounts.test.ts',
    'test/jobs/publish-post.test.ts',
    'test/jobs/render-posts.test.ts',
    'test/jobs/welcome-email.test.ts',
    'test/jobs/work-concurrently.test.ts',
    'test/webhooks/delivery.test.ts',
    'test/webhooks/wake.test.ts',
  ],
  'data on disk, start-up and scripts': [
    'test/server.test.ts',
    'test/auth/accounts/admin-bootstrap.test.ts',
    'test/auth/accounts/admin-email-verified.test.ts',
    'test/lazy-modules.test.ts',
    'test/scripts/user-admin.test.ts',
    // The media quota's sum (a bigint through the adapter) under a pg_advisory_xact_lock of
    // hashtext()s; deleteMedia's row lock, count(*) over () and cascades.
    'test/content/media/quota.test.ts',
    'test/content/media/delete.test.ts',
  ],
  "SQL that builds lists, feeds and searches, and the lists' generation": [
    'test/content/posts/list.test.ts',
    'test/content/posts/list-items.test.ts',
    'test/content/thumbnails/public-path.test.ts',
    // MEDIA_PUBLIC_BASE_URL's image urls built in the list and search SQL, the same as toPost's.
    'test/storage/public-base-url.test.ts',
    'test/content/posts/list-budget.test.ts',
    'test/content/search/search-hostile.test.ts',
    'test/content/search/search-index-hostile.test.ts',
    'test/content/feed/feed.test.ts',
    'test/content/posts/list-cache/list-cache.test.ts',
    // Post.mediaIds built in the list SQL (to_json of a uuid array), and post_media's writes.
    'test/content/media/render.test.ts',
    'test/content/media/render-edit.test.ts',
    // listMedia's keyset pages, on created_at taken with clock_timestamp() under the owner's lock.
    'test/content/media/listing.test.ts',
    // Post revisions: the body's sha256 taken by the database, the prune's window functions over
    // a bigint sum, text[] and uuid[] columns through the adapter, and the sweep's NOT EXISTS.
    'test/content/revisions/revisions.test.ts',
    'test/content/revisions/retention.test.ts',
    'test/content/revisions/images.test.ts',
    // Moderation's SQL: the "CommentStatus" enum cast in the insert's CTE and in status changes
    // (status::text read back), the `announced` flag, the count moved by raw updates, the queue's
    // keyset pages on (status, created_at, id) in both directions; what lists, counts and the feed
    // show of held comments.
    'test/content/comments/moderation.test.ts',
    // An edit's status judged again under the post's and the comment's row locks (raw select for
    // update, enum read as text), the count moved with it, the duplicate check excluding itself.
    'test/content/comments/edits.test.ts',
  ],
  'every operation': [
    'test/client/comments-categories.test.ts',
    'test/client/media.test.ts',
    'test/client/posts-images.test.ts',
    'test/client/system-auth-users.test.ts',
    'test/client/tokens.test.ts',
    'test/contract/data-examples.test.ts',
  ],
}
