// How one variable is read: unset or empty takes the default; anything else is checked, and a bad
// value throws ConfigError, which names the variable (and stops start-up with one line).

export class ConfigError extends Error {
  constructor(variable: string, problem: string, value: string | undefined) {
    const shown =
      value === undefined ? '' : ` (got ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`
    super(`Invalid configuration: ${variable} ${problem}${shown}`)
    this.name = 'ConfigError'
  }
}

export type Env = Record<string, string | undefined>

export function text(env: Env, name: string, fallback: string | null, maxLength = 2048): string | null {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw.length > maxLength) throw new ConfigError(name, `must be at most ${maxLength} characters`, raw)
  return raw
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}`, raw)
  }
  return value
}

export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, raw)
  return raw as T
}

export function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = text(env, name, null)
  if (raw === null) return null
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `must be a URL starting with ${protocols.join(' or ')}`, undefined)
  }
  // The URL may carry a password, so it is never echoed back.
  if (!protocols.includes(parsed.protocol))
    throw new ConfigError(name, `must start with ${protocols.join(' or ')}`, undefined)
  return raw
}

export function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(name, 'must be true or false', raw)
  return raw === 'true'
}
