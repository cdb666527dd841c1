// The rules a post write checks and the steps it shares, each on its own: optimistic concurrency
// (If-Match), the publication time and job of a status, the body rendered before the transaction,
// the categories locked, the slugs claimed or let go when a post is published or unpublished.
import type { components } from '../../generated/api.ts'
import type { TransactionSql } from '../../db/transaction.ts'
import { ApiError, invalid } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'
import { changeSlug, settleSlug } from '../slugs/post-slugs.ts'
import type { PostRecord, PostStatus, PostWrite } from './post-store.ts'
import { etagOf, toPost, type Post } from './post-view.ts'
import { lockForEdit } from './visibility.ts'
import { HTML_MAX_LENGTH, HtmlTooLargeError } from '../html/limits.ts'
import type { HtmlRenderer, RenderedBody } from '../html/post-html.ts'
import { mediaKeysIn } from '../html/body-media.ts'
import type { ImageUrls } from '../../images/image-urls.ts'
import type { PostStore } from './post-store.ts'

type UpdatePost = components['schemas']['UpdatePostRequest']

/**
 * The jobs that publish scheduled posts. Both run their SQL in the write's transaction, so a job
 * is enqueued or cancelled exactly when the write commits.
 */
export interface Publications {
  /** Enqueues the post's publication at `at`; the job's id. */
  schedule(postId: string, at: Date, sql: TransactionSql): Promise<string>
  cancel(jobId: string, sql: TransactionSql): Promise<void>
}

/** The post's ETag must match `If-Match` (when sent), or the caller edits a version they never saw. */
function checkIfMatch(ifMatch: string | undefined, current: Post) {
  if (ifMatch === undefined || ifMatch.trim() === '*') return
  const tags = ifMatch.split(',').map((tag) => tag.trim())
  if (!tags.includes(etagOf(current))) {
    throw new ApiError(412, 'PRECONDITION_FAILED', 'The post changed since you read it; read it again and retry.')
  }
}

// The time a post publishes itself at is the only one a client sets; publishing sets it to now.
export const PUBLISHED_AT_ONLY_SCHEDULED = "is accepted only when the post's status is (or stays) scheduled"

export function futureDate(value: string | undefined | null, path: string): Date {
  const date = value ? new Date(value) : null
  // A date-time the schema's format accepts can still be one Date cannot hold (a leap second, `23:59:60`): NaN.
  if (!date || Number.isNaN(date.getTime()) || date.getTime() <= Date.now())
    throw invalid(path, 'must be a time in the future to schedule the post')
  return date
}

/** The publication time an update leaves the post with, by the status it leaves it in. */
export function publishedAtAfter(input: UpdatePost, current: PostRecord, status: PostStatus): Date | null {
  if (status === 'scheduled') {
    const keep = input.publishedAt === undefined && current.status === 'scheduled'
    return futureDate(keep ? current.publishedAt?.toISOString() : input.publishedAt, '/body/publishedAt')
  }
  if (input.publishedAt !== undefined) throw invalid('/body/publishedAt', PUBLISHED_AT_ONLY_SCHEDULED)
  return status === 'draft' ? null : current.status === 'published' ? current.publishedAt : new Date()
}

/**
 * The status and publication time a restore gives the post: the revision's (restorePostRevision).
 * A published revision keeps the time it was published at. A scheduled one whose time has passed is
 * published at that time, as the publication job would have (publishIfDue keeps the scheduled time
 * when it runs late); one still ahead is scheduled for it.
 */
export function restoredStatus(
  revision: { status: PostStatus; publishedAt: Date | null },
  now = Date.now(),
): { status: PostStatus; publishedAt: Date | null } {
  const { status, publishedAt } = revision
  if (status === 'draft' || publishedAt === null) return { status: 'draft', publishedAt: null }
  if (status === 'scheduled' && publishedAt.getTime() > now) return { status, publishedAt }
  return { status: 'published', publishedAt }
}

/**
 * The publication job follows the post: a new time replaces it, leaving `scheduled` cancels it.
 * The job's id after the update.
 */
export async function reschedule(
  publications: Publications,
  write: PostWrite,
  current: PostRecord,
  status: PostStatus,
  publishedAt: Date | null,
): Promise<string | null> {
  const rescheduled = status === 'scheduled' && publishedAt!.getTime() !== current.publishedAt?.getTime()
  let publishJobId = current.publishJobId
  if (publishJobId !== null && (rescheduled || status !== 'scheduled')) {
    await publications.cancel(publishJobId, write.sql)
    publishJobId = null
  }
  if (rescheduled) publishJobId = await publications.schedule(current.id, publishedAt!, write.sql)
  return publishJobId
}

/**
 * A slug is claimed while its post is published (post-slugs.ts): unpublishing lets go of every
 * slug it claims, publishing claims its slug (or the one sent), numbered when a published post
 * took it meanwhile and the author did not send it now.
 */
export async function moveSlugs(write: PostWrite, current: PostRecord, status: PostStatus, sent: string | undefined) {
  const [was, is] = [current.status === 'published', status === 'published']
  const holder = { id: current.id, authorId: current.authorId, slug: current.slug }
  if (was && !is) {
    // Under the author's lock, as every slug check is: a draft of theirs checking a slug
    // between this release and this post's new status must not find it free of both.
    await write.slugs.lockAuthor(current.authorId)
    await write.slugs.release(current.id)
  }
  if (!was && is) await settleSlug(write.slugs, holder, sent ?? current.slug, sent !== undefined, true)
  else if (sent !== undefined) await changeSlug(write.slugs, { ...holder, published: is }, sent)
}

/** What rendering a body needs: the renderer, and the author's media its URLs name. */
export interface BodyRendering {
  html: Pick<HtmlRenderer, 'render'>
  store: Pick<PostStore, 'ownMedia'>
  mediaUrls: ImageUrls
}

/**
 * The body's HTML and the media items it shows. Rendered before the write's transaction, on the
 * renderer's thread: no row is locked and no connection held while it renders. The media URLs in
 * the body are looked up first, in one query, among the media of the post's author (`authorId`:
 * an admin editing someone's post shows that author's media, never the admin's).
 */
export async function renderBody(
  { html: renderer, store, mediaUrls }: BodyRendering,
  body: string,
  principal: Principal,
  authorId: string,
): Promise<RenderedBody> {
  const keys = mediaKeysIn(body, mediaUrls)
  const media = keys.length === 0 ? undefined : { urls: mediaUrls, byKey: await store.ownMedia(authorId, keys) }
  try {
    return await renderer.render(body, principal.userId, media)
  } catch (error) {
    if (error instanceof HtmlTooLargeError)
      throw invalid('/body/body', `renders to more than ${HTML_MAX_LENGTH} bytes of HTML`)
    throw error
  }
}

/**
 * The categories to file a post under, locked until the write commits so that none is deleted
 * meanwhile (store.existingCategoryIds); the default category when none are given. `unknown` is
 * the index of the first id that is not a category, -1 when all are.
 */
export async function lockCategories(
  write: PostWrite,
  ids: string[] | undefined,
): Promise<{ ids: string[]; unknown: number }> {
  if (!ids || ids.length === 0) return { ids: [await write.defaultCategoryId()], unknown: -1 }
  // Ids arrive lower-cased by request validation, and uniqueItems has refused duplicates.
  const existing = await write.existingCategoryIds(ids)
  return { ids, unknown: ids.findIndex((id) => !existing.has(id)) }
}

/** The locked category ids; 422 when one of them is not a category. */
export function known({ ids, unknown }: { ids: string[]; unknown: number }): string[] {
  if (unknown !== -1) {
    throw new ApiError(422, 'CATEGORY_NOT_FOUND', 'A category of the post does not exist.', [
      { path: `/body/categoryIds/${unknown}`, message: 'is not a category' },
    ])
  }
  return ids
}

/**
 * Locks and loads a post the caller may change, in the order of refusals the spec gives (412 last).
 * `imageUrls` (the image url prefix) is the one reads write the post with, so the ETag compared is the one they sent.
 */
export async function lockEditable(
  write: PostWrite,
  principal: Principal,
  id: string,
  ifMatch: string | undefined,
  imageUrls: string,
): Promise<PostRecord> {
  await lockForEdit(write, principal, id)
  const post = (await write.find(id))!
  checkIfMatch(ifMatch, toPost(post, imageUrls))
  return post
}
