// The bounds of a post's HTML, shared by the renderer (on its worker thread) and the services.

/**
 * The longest HTML a post may have, in bytes of UTF-8 (so also in characters: the spec's `Post.html`
 * maxLength). Counted in bytes because bytes are what lists and feeds carry and hold: a body of
 * three-byte characters would otherwise make HTML three times as heavy as its length says. Ten
 * times the longest body: ordinary Markdown renders to one or two times its length, a body of
 * tiny table cells or links to about five. What goes past it is built to blow up: a link
 * reference defined once with a long URL and used thousands of times renders each use in full
 * (quadratic: 100 000 characters made 416 million), hundred-deep quotes nested again and again
 * make twenty characters of HTML per character. Such a body is refused, and rendering stops as
 * soon as its output passes the bound, so neither the time nor the memory grows with the blow-up.
 * It also leaves room for the plain-text fallback of posts written before HTML was rendered (at
 * most six characters per character of the body: see plainTextHtml).
 */
export const HTML_MAX_LENGTH = 1_000_000

/**
 * What the renderer answers: the sanitized HTML and the media items it shows (their ids, sorted), or
 * that it would be heavier than HTML_MAX_LENGTH.
 */
export type RenderResult = { html: string; mediaIds: string[] } | { tooLarge: true }

/** The body renders to more than HTML_MAX_LENGTH bytes of HTML. */
export class HtmlTooLargeError extends Error {
  constructor() {
    super(`the body renders to more than ${HTML_MAX_LENGTH} bytes of HTML`)
    this.name = 'HtmlTooLargeError'
  }
}
