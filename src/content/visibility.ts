// Who may see and change a post: one place for the rules every content operation applies.
// Drafts and scheduled posts exist only for their author and admins; to anyone else they are 404.
import type { Principal } from '../auth/principal.ts'

interface Owned {
  authorId: string
  status: 'draft' | 'scheduled' | 'published'
}

export const canSee = (principal: Principal | null, post: Owned) =>
  post.status === 'published' || principal?.role === 'admin' || principal?.userId === post.authorId

export const canEdit = (principal: Principal, post: Pick<Owned, 'authorId'>) => principal.role === 'admin' || principal.userId === post.authorId
