// The renderer's worker thread (see post-html.ts): Markdown to sanitized HTML, off the event loop.
import { renderMarkdown } from './markdown.ts'
import type { RenderResult } from './limits.ts'

export default ({ body }: { body: string }): RenderResult => renderMarkdown(body)
