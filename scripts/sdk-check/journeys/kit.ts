// What the journeys share. The SDK check copies the journeys and this file beside each
// generated client and runs them with API_URL naming the service; they use only what a browser
// has too (fetch, Blob, FormData, atob), as client code would.
export const baseUrl = process.env.API_URL ?? 'http://127.0.0.1:3000'

/** A UUID no post has: reading it is `404 POST_NOT_FOUND`. */
export const unknownPostId = '00000000-0000-7000-8000-000000000000'

let accounts = 0
export function newAccount() {
  const email = `sdk-${Date.now()}-${accounts++}@example.com`
  return { email, password: `password of ${email}`, name: 'SDK check' }
}

/** A 2×2 PNG, as a file picker or a canvas hands it over: a Blob. */
export function photo(): Blob {
  const png =
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWMwTjtjnHaGAUIBACS2BZUFBQd/AAAAAElFTkSuQmCC'
  return new Blob([Uint8Array.from(atob(png), (char) => char.charCodeAt(0))], { type: 'image/png' })
}

export function check(condition: unknown, step: string): asserts condition {
  if (!condition) throw new Error(`journey step failed: ${step}`)
}

/** The key `getImage` takes, from a thumbnail size's `url` (`/images/<key>`). */
export const imageKey = (url: string) => url.slice('/images/'.length)
