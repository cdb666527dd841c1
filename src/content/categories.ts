// Categories: admin-managed labels with unique slugs; one is the default, given to posts filed nowhere.
// (Being implemented: see issue 4.)
import type { PrismaClient } from '../generated/prisma/client.ts'

export function makeCategoryService(prisma: PrismaClient) {
  return {
    /** Creates the default category when there is none; idempotent, safe for instances starting together. */
    async ensureDefault(): Promise<void> {
      await prisma.category.upsert({
        where: { slug: 'uncategorized' },
        create: { name: 'Uncategorized', slug: 'uncategorized', isDefault: true },
        update: {},
      })
    },
  }
}

export type CategoryService = ReturnType<typeof makeCategoryService>
