// Text the caller wrote (a property name, a path, a header value), quoted in an error answer: cut
// to a bound so an answer costs about the same whatever was sent, the cut marked with "…".

/** `text` if it has at most `max` characters (UTF-16 units), else its first ones and "…", `max` in all. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max - 1
  // Never half of a surrogate pair: an emoji is kept whole or left out.
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}
