// Writing posts: create, update, delete, and the publication of a scheduled post when its time
// comes. Each write renders the body before its transaction, checks the rules of
// post-write-rules.ts inside it, queues its webhook event there, and tells the caches once it has
// committed.
import type { components } from '../../generated/api.ts'
import { invalid, refuseBlank } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'
import { settleSlug, slugOfTitle } from '../slugs/post-slugs.ts'
import type { PostStatus } from './post-store.ts'
import { deriveExcerpt } from './excerpt.ts'
import { toPost, type Post } from './post-view.ts'
import { editableBy } from './visibility.ts'
import {
  futureDate,
  known,
  lockCategories,
  lockEditable,
  moveSlugs,
  PUBLISHED_AT_ONLY_SCHEDULED,
  publishedAtAfter,
  renderBody,
  reschedule,
  restoredStatus,
} from './post-write-rules.ts'
import type { PostServiceOptions } from './posts.ts'
import type { RenderedBody } from '../html/post-html.ts'

type CreatePost = components['schemas']['CreatePostRequest']
type UpdatePost = components['schemas']['UpdatePostRequest']

type Writes = Pick<
  PostServiceOptions,
  | 'store'
  | 'publications'
  | 'requestImageSweep'
  | 'changes'
  | 'html'
  | 'events'
  | 'imageUrls'
  | 'mediaUrls'
  | 'recordRevision'
>

/**
 * What restorePostRevision adds to an update's input (src/content/revisions): the revision's
 * thumbnail, and its status and publication time, which an update's input cannot carry (a
 * published post's time is not a client's to set): restoredStatus decides what they become.
 */
export interface Restoring {
  thumbnail: { key: string; width: number }[]
  status: PostStatus
  publishedAt: Date | null
}

async function createPost(writes: Writes, principal: Principal, input: CreatePost): Promise<Post> {
  const { store, publications, changes, events } = writes
  refuseBlank(input.title, '/body/title')
  refuseBlank(input.body, '/body/body')
  const slug = input.slug ?? (await slugOfTitle(input.title))
  const status: PostStatus = input.status ?? 'draft'
  if (status !== 'scheduled' && input.publishedAt !== undefined)
    throw invalid('/body/publishedAt', PUBLISHED_AT_ONLY_SCHEDULED)
  const publishedAt =
    status === 'scheduled'
      ? futureDate(input.publishedAt, '/body/publishedAt')
      : status === 'published'
        ? new Date()
        : null
  const { html, mediaIds } = await renderBody(writes, input.body, principal, principal.userId)
  const created = await store.transaction(async (write) => {
    const categoryIds = known(await lockCategories(write, input.categoryIds))
    const excerpt = input.excerpt ?? deriveExcerpt(input.body)
    const id = await write.create(
      principal.userId,
      {
        title: input.title,
        body: input.body,
        html,
        excerpt,
        status,
        publishedAt,
        commentsOpen: input.commentsOpen ?? true,
      },
      categoryIds,
      slug,
    )
    await write.showMedia(id, principal.userId, mediaIds, [])
    // Claimed only when published; a draft's slug has only to be free for its author.
    const holder = { id, authorId: principal.userId, slug }
    await settleSlug(write.slugs, holder, slug, input.slug !== undefined, status === 'published')
    await write.reindex(id, input.title, input.body)
    if (status === 'scheduled') {
      const publishJobId = await publications.schedule(id, publishedAt!, write.sql)
      await write.update(id, { publishJobId })
    }
    // Read while the categories are still locked: a category deleted right after the commit
    // would otherwise be read as a filing without its category.
    const post = (await write.find(id))!
    await writes.recordRevision(write, post, principal.userId, null)
    if (status === 'published') await events.emit(write.sql, 'post.published', toPost(post, writes.imageUrls))
    return post
  })
  // A new post is in no post cache; a published one is in lists.
  if (status === 'published') await changes.changed({ createdPostId: created.id })
  return toPost(created, writes.imageUrls)
}

async function updatePost(
  writes: Writes,
  principal: Principal,
  id: string,
  input: UpdatePost,
  ifMatch: string | undefined,
  restoring?: Restoring,
): Promise<Post> {
  const { store, publications, changes, events } = writes
  refuseBlank(input.title, '/body/title')
  refuseBlank(input.body, '/body/body')
  // Only for a caller who may change the post (checked again, locked, in the transaction):
  // rendering costs, and a refusal is 404 or 403 before it is about the body.
  let rendered: RenderedBody | undefined
  if (input.body !== undefined) {
    const { authorId } = editableBy(principal, await store.findOwnerAndStatus(id))
    rendered = await renderBody(writes, input.body, principal, authorId)
  }
  const html = rendered?.html
  const updated = await store.transaction(async (write) => {
    // The categories before the post, the order deleteCategory locks them in (its category,
    // then the posts filed there): the opposite order could deadlock with it.
    const categories = input.categoryIds === undefined ? undefined : await lockCategories(write, input.categoryIds)
    const current = await lockEditable(write, principal, id, ifMatch, writes.imageUrls)
    // Decided in the transaction: a scheduled time that passes before it publishes, not a 400.
    const restored = restoring === undefined ? undefined : restoredStatus(restoring)
    const status = restored?.status ?? input.status ?? current.status
    const publishedAt = restored === undefined ? publishedAtAfter(input, current, status) : restored.publishedAt
    const body = input.body ?? current.body
    const excerpt = input.excerpt ?? (input.body !== undefined ? deriveExcerpt(body) : current.excerpt)
    const publishJobId = await reschedule(publications, write, current, status, publishedAt)
    await write.update(id, {
      title: input.title,
      body,
      html,
      excerpt,
      status,
      publishedAt,
      publishJobId,
      commentsOpen: input.commentsOpen,
    })
    // A new body whose HTML is the old one's looks to the database like an edit by a writer
    // that does not render (the migration post_html's trigger), which drops html: set it again,
    // in a statement that leaves the body alone.
    if (html !== undefined && html === current.html && body !== current.body) await write.update(id, { html })
    // The media shown change with the body only (a post's author never changes).
    if (rendered !== undefined) await write.showMedia(id, current.authorId, rendered.mediaIds, current.media)
    if (categories !== undefined) await write.fileUnder(id, known(categories))
    const released = restoring === undefined ? 0 : await write.restoreThumbnail(id, restoring.thumbnail)
    await moveSlugs(write, current, status, input.slug)
    if (input.title !== undefined || input.body !== undefined)
      await write.reindex(id, input.title ?? current.title, body)
    const post = (await write.find(id))!
    await writes.recordRevision(write, post, principal.userId, current)
    const published = current.status !== 'published' && status === 'published'
    await events.emit(write.sql, published ? 'post.published' : 'post.updated', toPost(post, writes.imageUrls))
    // Public lists hold published posts only: a post that is not and was not published is in none.
    return { post, listed: current.status === 'published' || status === 'published', released }
  })
  await changes.changed({ postId: id, listsChanged: updated.listed })
  if (updated.released > 0) await writes.requestImageSweep()
  return toPost(updated.post, writes.imageUrls)
}

async function removePost(writes: Writes, principal: Principal, id: string, ifMatch: string | undefined) {
  const { store, publications, changes, events } = writes
  const removed = await store.transaction(async (write) => {
    const post = await lockEditable(write, principal, id, ifMatch, writes.imageUrls)
    if (post.publishJobId !== null) await publications.cancel(post.publishJobId, write.sql)
    // The thumbnail rows go with the post (cascade); the images behind them, with the sweep.
    await write.remove(id)
    await events.emit(write.sql, 'post.deleted', toPost(post, writes.imageUrls))
    return { hadThumbnail: post.thumbnail.length > 0, listed: post.status === 'published' }
  })
  await changes.changed({ postId: id, listsChanged: removed.listed })
  if (removed.hadThumbnail) await writes.requestImageSweep()
}

/** The publish-post job: publishes a scheduled post whose time has come, and says so to webhooks in its transaction. */
async function publishIfDue(
  { store, changes, events, imageUrls, recordRevision }: Writes,
  id: string,
): Promise<boolean> {
  const published = await store.transaction(async (write) => {
    if (!(await write.publishIfDue(id))) return false
    // Its slug is claimed now; a published post that took it meanwhile leaves it the next number.
    const due = (await write.find(id))!
    await settleSlug(write.slugs, { id, authorId: due.authorId, slug: due.slug }, due.slug, false, true)
    const post = (await write.find(id))!
    // A revision by no one (the service): its status changed (and its slug, when numbered), and it
    // is the one retention keeps as the last published, so the text readers saw is always
    // restorable. publishIfDue changed the status alone: the post before it is `due` as scheduled.
    await recordRevision(write, post, null, { ...due, status: 'scheduled' })
    await events.emit(write.sql, 'post.published', toPost(post, imageUrls))
    return true
  })
  if (published) await changes.changed({ postId: id, listsChanged: true })
  return published
}

export function makePostWrites(writes: Writes) {
  return {
    create: (principal: Principal, input: CreatePost) => createPost(writes, principal, input),
    update: (principal: Principal, id: string, input: UpdatePost, ifMatch: string | undefined, restoring?: Restoring) =>
      updatePost(writes, principal, id, input, ifMatch, restoring),
    remove: (principal: Principal, id: string, ifMatch: string | undefined) =>
      removePost(writes, principal, id, ifMatch),
    publishIfDue: (id: string) => publishIfDue(writes, id),
  }
}
