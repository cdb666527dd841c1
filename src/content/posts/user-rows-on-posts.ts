// The one place that says which posts show a user's rows, other than the posts they wrote: a
// table here holds rows of one user, each shown on one post (a count on it, a list in it). When
// the account goes, its rows go, so what those posts show changes:
// account deletion (src/auth/accounts/account-deletion-store.ts) deletes the user's rows of each
// table in bounded batches first, moving the posts' stored counts of them (`countedIn`), and tells
// the post and list caches about every post that showed one.
//
// A new table that refers to users and to posts (likes, reactions, bookmarks counted on a post)
// is listed here, or in NOT_SHOWN_ON_POSTS with the reason: test/content/posts/user-rows-on-posts.test.ts
// reads the foreign keys of the migrated schema and fails for a table in neither list.

export interface UserRowsOnPosts {
  table: string
  /** Its column that refers to users.id: whose row it is. */
  userColumn: string
  /** Its column that refers to posts.id: the post that shows it. */
  postColumn: string
  /** What the post shows of these rows. */
  shows: string
  /**
   * The posts column that counts these rows, kept by the writes that add and remove them; account
   * deletion moves it by the rows that go. Null when the post counts nothing.
   */
  countedIn: string | null
  /**
   * Deleted by account deletion's own steps before the rest (comments, with the replies to them).
   * Every other table's rows go in bounded batches, each moving `countedIn`, before the user's row.
   */
  ownSteps?: true
}

export const USER_ROWS_ON_POSTS: readonly UserRowsOnPosts[] = [
  {
    table: 'comments',
    userColumn: 'author_id',
    postColumn: 'post_id',
    shows: 'commentCount',
    countedIn: 'comment_count',
    ownSteps: true,
  },
]

/** Tables that refer to users and to posts whose rows no post shows, each with why. */
export const NOT_SHOWN_ON_POSTS: Record<string, string> = {
  // editor_id is set null when the editor's account goes: the revision stays (an admin's edit of
  // someone's post), nothing a post shows counts it, and a post's own revisions go with the post.
  post_revisions: 'revisions are shown to the post author and admins only, never on the post; editor_id is set null',
}
