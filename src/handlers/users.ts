// Tag `users`: the signed-in user's own account, and user administration.
import { notImplemented } from '../http/not-implemented.ts'

export const getCurrentUser = notImplemented('getCurrentUser')
export const updateCurrentUser = notImplemented('updateCurrentUser')
export const listUsers = notImplemented('listUsers')
export const updateUser = notImplemented('updateUser')
