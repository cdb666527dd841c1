import { IMAGE_FORMATS, type ImageFormat } from '../images/sniff.ts'
import { ConfigError, text, type Env } from './variables.ts'

/** A comma-separated subset of the image formats we can decode; unset: all of them. */
export function imageFormats(env: Env, name: string): ImageFormat[] {
  const raw = text(env, name, null, 200)
  if (raw === null) return [...IMAGE_FORMATS]
  const problem = `must be a comma-separated list of ${IMAGE_FORMATS.join(', ')}`
  const list = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
  if (list.length === 0) throw new ConfigError(name, problem, raw)
  for (const entry of list) {
    if (!(IMAGE_FORMATS as readonly string[]).includes(entry)) throw new ConfigError(name, problem, entry)
  }
  // In our order, once each: messages then list them the same way whatever the variable's order.
  return IMAGE_FORMATS.filter((format) => list.includes(format))
}
