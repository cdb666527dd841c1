// Tag `images`: post thumbnails and the image bytes behind them.
import { notImplemented } from '../http/not-implemented.ts'

export const uploadPostThumbnail = notImplemented('uploadPostThumbnail')
export const deletePostThumbnail = notImplemented('deletePostThumbnail')
export const getImage = notImplemented('getImage')
