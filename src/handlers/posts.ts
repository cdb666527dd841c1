// Tag `posts`.
import { notImplemented } from '../http/not-implemented.ts'

export const listPosts = notImplemented('listPosts')
export const createPost = notImplemented('createPost')
export const getPost = notImplemented('getPost')
export const updatePost = notImplemented('updatePost')
export const deletePost = notImplemented('deletePost')
