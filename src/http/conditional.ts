// Conditional requests (RFC 9110 §13.1.2): If-None-Match uses the weak comparison, so `W/`
// prefixes are ignored, and `*` matches any current representation.
export const ifNoneMatchHits = (header: string | undefined, etag: string) =>
  header !== undefined && header.split(',').some((tag) => ['*', etag].includes(tag.trim().replace(/^W\//, '')))
