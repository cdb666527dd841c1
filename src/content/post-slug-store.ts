// The data layer for post slugs (post_slugs): every slug of every post, current and earlier, keyed
// by the slug itself, so that a slug leads to one post at most. The rules are post-slugs.ts's.
import type { PrismaClient } from '../generated/prisma/client.ts'
import type { Tx } from '../db/transaction.ts'

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
      const row = await prisma.postSlug.findUnique({
        where: { slug },
        select: { postId: true, post: { select: { slug: true } } },
      })
      return row && { id: row.postId, current: row.post.slug }
    },
  }
}

export type PostSlugStore = ReturnType<typeof makePostSlugStore>
