import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, text, type Env } from './variables.ts'

/**
 * The secret that signs access tokens. Several instances must share one, so on Postgres it is
 * required; on the embedded database a random one is made once and kept beside the data, so a
 * newcomer's `npm start` works and tokens survive a restart.
 */
export function jwtSecret(env: Env, databaseUrl: string | null, dataDir: string | null): string {
  const given = text(env, 'JWT_SECRET', null, 512)
  if (given !== null) {
    if (given.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters', undefined)
    return given
  }
  if (databaseUrl !== null) throw new ConfigError('JWT_SECRET', 'is required when DATABASE_URL is set', undefined)
  if (dataDir === null) return randomBytes(32).toString('base64url')
  const file = join(dataDir, 'jwt-secret')
  let kept: string
  try {
    kept = readFileSync(file, 'utf8').trim()
  } catch (error) {
    // Only a missing file means "first start": replacing one we could not read would sign everyone out.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(
        'JWT_SECRET',
        `is unset and ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`,
        undefined,
      )
    }
    const secret = randomBytes(32).toString('base64url')
    mkdirSync(dataDir, { recursive: true })
    // Written beside it and renamed: a start killed mid-write leaves no empty secret behind.
    const written = `${file}.${process.pid}.new`
    writeFileSync(written, secret, { mode: 0o600 })
    renameSync(written, file)
    return secret
  }
  // An edited or truncated file must not sign tokens with a guessable key.
  if (kept.length < 32)
    throw new ConfigError(
      'JWT_SECRET',
      `is unset and ${file} holds fewer than 32 characters: delete it to have a new secret made`,
      undefined,
    )
  return kept
}
