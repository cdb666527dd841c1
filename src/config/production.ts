// What production (NODE_ENV=production) refuses to start without. Each default here suits a
// developer's machine and misbehaves quietly in a fleet: an instance on an embedded database of its
// own serves other data than the rest; mail written to files under DATA_DIR/mail reaches nobody;
// links built on the instance's own address (127.0.0.1:3000) lead nowhere, and a mailed link to
// one of the API's POST-only operations cannot be opened.
// An operator who means either says so with a setting; otherwise start-up stops with one line
// naming what to set.
import { ConfigError, flag, text, type Env } from './variables.ts'

export const inProduction = (env: Env) => env.NODE_ENV === 'production'

export function refuseQuietDefaults(env: Env, { databaseUrl, smtpUrl }: { databaseUrl: unknown; smtpUrl: unknown }) {
  if (!inProduction(env)) return
  if (databaseUrl === null && !flag(env, 'EMBEDDED_DATABASE_IN_PRODUCTION', false)) {
    throw new ConfigError(
      'DATABASE_URL',
      'is required in production (NODE_ENV=production): the PostgreSQL every instance shares; ' +
        'EMBEDDED_DATABASE_IN_PRODUCTION=true runs one instance on its own embedded database on purpose',
      undefined,
    )
  }
  if (smtpUrl === null && !flag(env, 'MAIL_TO_FILES', false)) {
    throw new ConfigError(
      'SMTP_URL',
      'is required in production (NODE_ENV=production): without it mail is written to DATA_DIR/mail ' +
        'and reaches nobody; MAIL_TO_FILES=true keeps it there on purpose',
      undefined,
    )
  }
  for (const [name, operation] of [
    ['EMAIL_VERIFICATION_URL', 'verifyEmail'],
    ['PASSWORD_RESET_URL', 'resetPassword'],
  ] as const) {
    if (text(env, name, null) === null)
      throw new ConfigError(
        name,
        `is required in production (NODE_ENV=production): the page of your site a mailed link opens, with ` +
          `{token} where the token goes, which posts it to ${operation}; the default, that POST-only ` +
          'operation itself, cannot be opened from a mail',
        undefined,
      )
  }
  if (text(env, 'PUBLIC_URL', null) === null) {
    throw new ConfigError(
      'PUBLIC_URL',
      'is required in production (NODE_ENV=production): the URL clients reach the service at, path prefix ' +
        "included; the feed's links, the links mailed and image URLs are built on it",
      undefined,
    )
  }
}
