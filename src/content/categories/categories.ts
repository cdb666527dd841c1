// Categories: admin-managed labels with unique slugs; one is the default, given to posts filed nowhere.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { isMissingRecord, isUniqueViolation } from '../../db/errors.ts'
import { ApiError, invalid, notFound, refuseBlank } from '../../errors/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeKeyCursor, keyPageOf } from '../../cursor.ts'
import type { CategoryRecord, CategoryStore } from './category-store.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import { SLUG_PATTERN, slugify } from '../slugs/slug.ts'

type Category = components['schemas']['Category']

export const toCategory = (category: CategoryRecord): Wire<Category> => ({
  id: category.id,
  name: category.name,
  slug: category.slug,
  isDefault: category.isDefault,
  createdAt: category.createdAt.toISOString(),
  updatedAt: category.updatedAt.toISOString(),
})

const slugTaken = () =>
  new ApiError(409, 'CATEGORY_SLUG_TAKEN', 'Another category has this slug.', [
    { path: '/body/slug', message: 'Another category has this slug.' },
  ])
const categoryNotFound = () => notFound('CATEGORY_NOT_FOUND', 'Category')

/** Names are shown as given, minus surrounding blanks; a name of blanks only names nothing. */
function cleanName(name: string): string {
  refuseBlank(name, '/body/name')
  return name.trim()
}

/** A slug taken by another category is a 409 whether it was sent or derived, never a 500. */
async function slugChecked<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken()
    throw error
  }
}

export interface CategoryServiceOptions {
  store: CategoryStore
  /** Posts embed their categories, so a rename or a delete changes them. */
  changes: PostChanges
  /** LIST_PAGE_MAX_BYTES: the most bytes of categories one page carries. */
  pageMaxBytes: number
}

export function makeCategoryService({ store, changes, pageMaxBytes }: CategoryServiceOptions) {
  return {
    /**
     * Creates the default category when there is none; idempotent, safe for instances starting
     * together. It looks for *a* default, not for its slug: an admin may have renamed it.
     */
    async ensureDefault(): Promise<void> {
      if (!(await store.hasDefault())) await store.upsertDefault('Uncategorized', 'uncategorized')
    },

    async list(query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.list({ limit, afterSlug: decodeKeyCursor(query.cursor, SLUG_PATTERN) })
      const { items, nextCursor } = keyPageOf(rows, limit, (category) => category.slug, toCategory, pageMaxBytes)
      return { categories: items, page: { limit, nextCursor } }
    },

    async create(input: { name: string; slug?: string }): Promise<Category> {
      const name = cleanName(input.name)
      const slug = input.slug ?? (await slugify(name))
      if (slug === '')
        throw invalid(
          '/body/slug',
          'cannot be derived from the name (no letter or digit that can be written in ASCII); send one',
        )
      return toCategory(await slugChecked(store.create({ name, slug })))
    },

    /** Renaming keeps the slug: links to /categories/<slug> filters must not break on a typo fix. */
    async update(id: string, input: { name?: string; slug?: string }): Promise<Category> {
      const name = input.name === undefined ? undefined : cleanName(input.name)
      let updated
      try {
        updated = toCategory(await slugChecked(store.update(id, { name, slug: input.slug })))
      } catch (error) {
        if (isMissingRecord(error)) throw categoryNotFound()
        throw error
      }
      await changes.changed({ categoryId: id })
      return updated
    },

    async remove(id: string): Promise<void> {
      const outcome = await store.remove(id)
      if (outcome === 'missing') throw categoryNotFound()
      if (outcome === 'default')
        throw new ApiError(409, 'CATEGORY_IS_DEFAULT', 'The default category cannot be deleted.')
      await changes.changed({ categoryId: id })
    },
  }
}

export type CategoryService = ReturnType<typeof makeCategoryService>
