// Tag `categories`.
import { notImplemented } from '../http/not-implemented.ts'

export const listCategories = notImplemented('listCategories')
export const createCategory = notImplemented('createCategory')
export const updateCategory = notImplemented('updateCategory')
export const deleteCategory = notImplemented('deleteCategory')
