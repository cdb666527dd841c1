// The data layer for categories. Lists are keyset-paged on the unique slug, never by offset.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'

export type CategoryRecord = Prisma.CategoryGetPayload<object>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function makeCategoryStore(prisma: PrismaClient) {
  return {
    list: (options: { limit: number; afterSlug?: string }) =>
      prisma.category.findMany({
        where: options.afterSlug === undefined ? {} : { slug: { gt: options.afterSlug } },
        orderBy: { slug: 'asc' },
        take: options.limit + 1,
      }),

    create: (data: { name: string; slug: string }) => prisma.category.create({ data }),

    /** The category given by id (in either case) or by slug, as listPosts' filter takes it; null when there is none. */
    findByIdOrSlug: (idOrSlug: string) =>
      prisma.category.findFirst({
        where: UUID.test(idOrSlug) ? { id: idOrSlug.toLowerCase() } : { slug: idOrSlug },
        select: { id: true, name: true, slug: true },
      }),

    update: (id: string, data: { name?: string; slug?: string }) => prisma.category.update({ where: { id }, data }),

    hasDefault: async () => (await prisma.category.count({ where: { isDefault: true } })) > 0,

    /** Makes the category with this slug the default, creating it when missing; safe for instances starting together. */
    upsertDefault: (name: string, slug: string) =>
      prisma.category.upsert({ where: { slug }, create: { name, slug, isDefault: true }, update: { isDefault: true } }),

    /**
     * Deletes a category in one transaction: posts filed only there move to the default category
     * first, so no post is ever left without one. 'missing' / 'default' when it may not be deleted.
     */
    remove: (id: string) =>
      prisma.$transaction(async (tx): Promise<'deleted' | 'missing' | 'default'> => {
        // Locked first: a post write filing a post in it holds it `for key share` (existingCategoryIds),
        // so one of the two waits for the other; a post filed after it is gone gets 422 CATEGORY_NOT_FOUND.
        const [category] = await tx.$queryRaw<
          { is_default: boolean }[]
        >`select is_default from categories where id = ${id}::uuid for update`
        if (category === undefined) return 'missing'
        if (category.is_default) return 'default'
        // Then the posts filed in it, in one order: a post being deleted meanwhile is skipped once
        // gone (instead of failing the insert below on its foreign key), and two categories of one
        // post deleted at once take turns, so the second sees the first gone and files the post
        // in the default category.
        await tx.$queryRaw`
          select p.id from posts p join post_categories pc on pc.post_id = p.id
          where pc.category_id = ${id}::uuid order by p.id for no key update of p`
        await tx.$executeRaw`
          insert into post_categories (post_id, category_id)
          select pc.post_id, d.id from post_categories pc join categories d on d.is_default
          where pc.category_id = ${id}::uuid
            and not exists (select 1 from post_categories other where other.post_id = pc.post_id and other.category_id <> ${id}::uuid)
          on conflict do nothing`
        await tx.postCategory.deleteMany({ where: { categoryId: id } })
        await tx.category.delete({ where: { id } })
        return 'deleted'
      }),
  }
}

export type CategoryStore = ReturnType<typeof makeCategoryStore>
