// The settings that are addresses: the sender of mails, the links mailed, the URL clients reach the
// service at, the origins that may call it and the proxies that may name the client.
import { isIP } from 'node:net'
import { ConfigError, text, type Env } from './variables.ts'

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function mailFrom(env: Env): string {
  const value = text(env, 'MAIL_FROM', 'Blog <no-reply@blog.localhost>', 254)!
  const address = /<([^>]+)>$/.exec(value)?.[1] ?? value
  if (!EMAIL.test(address))
    throw new ConfigError('MAIL_FROM', 'must be an email address, optionally as "Name <address>"', value)
  return value
}

/**
 * A link to mail: an http(s) URL with `{token}` where the token goes. Unset, it points at this
 * service's own operation under `base` (PUBLIC_URL, path prefix included, or the address it listens
 * at); operators set it to their site's page, which posts the token to the API.
 */
export function linkTemplate(env: Env, name: string, base: string, path: string): string {
  const raw = text(env, name, null)
  if (raw === null) return `${base}${path}?token={token}`
  let parsed: URL | undefined
  try {
    parsed = new URL(raw.replaceAll('{token}', 'token'))
  } catch {
    // reported below
  }
  if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || !raw.includes('{token}'))
    throw new ConfigError(name, 'must be an http(s) URL containing {token}', raw)
  return raw
}

/** The address this service listens at, as a URL (any address: the loopback one). */
function ownUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  return `http://${shown}:${port}`
}

/** The most characters PUBLIC_URL's path may have: 77 more make a thumbnail's url, which the spec bounds at 200. */
/** The http(s) URL setting `name`, or null when unset; refused with a query, a fragment or credentials. */
export function httpUrl(env: Env, name: string): URL | null {
  const raw = text(env, name, null)
  if (raw === null) return null
  let parsed: URL | undefined
  try {
    parsed = new URL(raw)
  } catch {
    // reported below
  }
  const extra = raw.includes('?') || raw.includes('#') || parsed?.username !== '' || parsed?.password !== ''
  if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || extra)
    throw new ConfigError(name, 'must be an http(s) URL without query, fragment or credentials', raw)
  return parsed
}

export const PUBLIC_PATH_MAX_LENGTH = 120
/** Segments of RFC 3986's path characters (pchar), none empty; linear: each segment ends at a slash. */
const PUBLIC_PATH = /^(?:\/(?:[\w\-.~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)*$/

/**
 * The URL clients reach the service at, as a base for absolute links: http(s), perhaps with a path
 * (behind a proxy at /api), no query or fragment; kept without a trailing slash. Unset, it is the
 * address the service listens at, as for the links mailed.
 */
export function publicUrl(env: Env, host: string, port: number): string {
  const parsed = httpUrl(env, 'PUBLIC_URL')
  if (parsed === null) return ownUrl(host, port)
  let href = parsed.href
  while (href.endsWith('/')) href = href.slice(0, -1)
  // The path starts the urls of images (ThumbnailSize.url, at most 200 characters): absolute-path
  // references, so not empty segments (`//blog` would name a host) nor characters they cannot carry.
  const path = publicPath(href)
  if (path.length > PUBLIC_PATH_MAX_LENGTH || !PUBLIC_PATH.test(path))
    throw new ConfigError(
      'PUBLIC_URL',
      `must have a path of at most ${PUBLIC_PATH_MAX_LENGTH} characters, without empty segments or characters outside RFC 3986's`,
      env.PUBLIC_URL,
    )
  return href
}

/**
 * PUBLIC_URL's path, without a trailing slash: '' when it has none (every default), '/blog' behind
 * a proxy that serves the API under /blog. The absolute-path references the API writes (image
 * urls) start with it.
 */
export function publicPath(publicUrl: string): string {
  const path = new URL(publicUrl).pathname
  return path === '/' ? '' : path
}

/** A comma-separated list of origins (`https://blog.example.com`), or `*` for any. */
export function origins(env: Env, name: string): string[] {
  const raw = text(env, name, '', 4096)!
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of list) {
    if (entry === '*') continue
    let parsed: URL | undefined
    try {
      parsed = new URL(entry)
    } catch {
      // reported below
    }
    // An origin is scheme, host and port, exactly as a browser sends it: no path, no trailing slash.
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== entry) {
      throw new ConfigError(
        name,
        'must be a comma-separated list of origins such as https://blog.example.com, or *',
        entry,
      )
    }
  }
  return list
}

const PROXY_ADDRESS = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/

/**
 * Which proxies may name the client in X-Forwarded-For. Unset: none, so the address a limit counts
 * is the connection's own, whatever headers a client sends.
 */
export function trustProxy(env: Env): false | string[] {
  const raw = text(env, 'TRUST_PROXY', '', 4096)!.trim()
  if (raw === '' || raw === 'false') return false
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const bad = list.find((entry) => {
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const family = isIP(address)
    // A prefix longer than the address (10.0.0.0/99) would be refused by Fastify with a TypeError;
    // /0 trusts every address, so any client could name itself, which TRUST_PROXY guards against.
    const width = Number(prefix)
    const badPrefix = prefix !== undefined && (width > (family === 4 ? 32 : 128) || width === 0)
    return !PROXY_ADDRESS.test(entry) || family === 0 || badPrefix
  })
  if (bad !== undefined)
    throw new ConfigError('TRUST_PROXY', 'must be a comma-separated list of proxy addresses or CIDR ranges', bad)
  return list
}
