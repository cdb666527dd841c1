// The data layer for post slugs (post_slugs): every slug of every published post, current and
// earlier, keyed by the slug itself, so that a slug leads to one post at most; and the current
// slugs of an author's unpublished posts, which claim nothing (posts.slug). The rules are post-slugs.ts's.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { Tx } from '../../db/transaction.ts'

/** A slug as stored: the slug less a trailing number, and that number (1 when there is none). */
export interface StemmedSlug {
  slug: string
  stem: string
  suffix: number
}

/** A post's slug rows, written in the post write's transaction `tx` (PostStore.transaction). */
export function slugWrites(tx: Tx) {
  return {
    /**
     * Holds the author's slugs until the transaction ends: their unpublished posts' slugs are
     * unique among them by no key, so two writes of one author must not both find one free.
     */
    lockAuthor: async (authorId: string) =>
      void (await tx.$executeRaw`select pg_advisory_xact_lock(hashtext('post-slugs'), hashtext(${authorId}))`),

    /** Whether another post claims `slug` (published, as its current or an earlier slug); nothing is taken. */
    async claimedByAnother(postId: string, slug: string): Promise<boolean> {
      const rows = await tx.$queryRaw<unknown[]>`
        select 1 from post_slugs where slug = ${slug} and post_id <> ${postId}::uuid`
      return rows.length > 0
    },

    /** Whether another unpublished post of the author has `slug` as its current slug. */
    async heldByOwnDraft(authorId: string, postId: string, slug: string): Promise<boolean> {
      const rows = await tx.$queryRaw<unknown[]>`
        select 1 from posts
        where author_id = ${authorId}::uuid and slug = ${slug} and status <> 'published' and id <> ${postId}::uuid`
      return rows.length > 0
    },

    /** The current slugs of the author's unpublished posts that are `stem` or `stem-…`. */
    ownDraftSlugsOn: async (authorId: string, stem: string): Promise<string[]> =>
      (
        await tx.$queryRaw<{ slug: string }[]>`
          select slug from posts
          where author_id = ${authorId}::uuid and status <> 'published'
            and (slug = ${stem} or left(slug, ${stem.length + 1}) = ${stem + '-'})`
      ).map((row) => row.slug),

    /** Lets go of every slug the post claims: it is no longer published. */
    release: async (postId: string) =>
      void (await tx.$executeRaw`delete from post_slugs where post_id = ${postId}::uuid`),

    /**
     * Gives the post this slug, unless it leads to another post: true when the post has it now
     * (new, or one of its own earlier slugs, which becomes its newest). Never fails on a taken
     * slug, so the transaction goes on; one being taken by a write not yet committed waits for it.
     */
    async take(postId: string, { slug, stem, suffix }: StemmedSlug): Promise<boolean> {
      const rows = await tx.$queryRaw<unknown[]>`
        insert into post_slugs (slug, post_id, stem, suffix) values (${slug}, ${postId}::uuid, ${stem}, ${suffix})
        on conflict (slug) do update set used_at = now() where post_slugs.post_id = excluded.post_id
        returning post_id`
      return rows.length === 1
    },

    /** The highest number in use after `stem-` (1 for `stem` alone); null when none is. */
    async topSuffix(stem: string): Promise<number | null> {
      const [row] = await tx.$queryRaw<{ top: number | null }[]>`
        select max(suffix) as top from post_slugs where stem = ${stem}`
      return row?.top ?? null
    },

    /** Makes `slug` (one of the post's rows) its current slug, leaving its updatedAt alone. */
    setCurrent: async (postId: string, slug: string) =>
      void (await tx.$executeRaw`update posts set slug = ${slug} where id = ${postId}::uuid`),

    /** Lets go of one of the post's slugs. */
    drop: async (postId: string, slug: string) =>
      void (await tx.$executeRaw`delete from post_slugs where post_id = ${postId}::uuid and slug = ${slug}`),

    /** Lets go of the post's earlier slugs but the `kept` most recent ones; how many went. */
    letGo: (postId: string, current: string, kept: number) =>
      tx.$executeRaw`
        delete from post_slugs where post_id = ${postId}::uuid and slug <> ${current} and slug not in (
          select slug from post_slugs where post_id = ${postId}::uuid and slug <> ${current}
          order by used_at desc, slug desc limit ${kept})`,
  }
}

export type SlugWrites = ReturnType<typeof slugWrites>

export function makePostSlugStore(prisma: PrismaClient) {
  return {
    /** The post a slug leads to (the slug being its current one or an earlier one), and its current slug. */
    async find(slug: string): Promise<{ id: string; current: string } | null> {
      // One statement (Prisma's relation select is two): one round trip, and one snapshot.
      const [row] = await prisma.$queryRaw<{ id: string; current: string }[]>`
        select s.post_id::text as id, p.slug as current
        from post_slugs s join posts p on p.id = s.post_id where s.slug = ${slug}`
      return row ?? null
    },
  }
}

export type PostSlugStore = ReturnType<typeof makePostSlugStore>
