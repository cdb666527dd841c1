// Tag `comments`.
import { notImplemented } from '../http/not-implemented.ts'

export const listComments = notImplemented('listComments')
export const createComment = notImplemented('createComment')
export const updateComment = notImplemented('updateComment')
export const deleteComment = notImplemented('deleteComment')
