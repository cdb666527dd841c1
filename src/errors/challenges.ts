// The WWW-Authenticate challenge of every 401: RFC 9110 §11.6.1 requires one on each, naming how
// to authenticate to the resource. The spec's `Unauthorized`, `InvalidCredentials` and
// `RefreshTokenInvalid` responses document these values; and that of a 403 refusing an API token
// for its scopes, which `Forbidden` documents.

/** No credentials were sent: which scheme to use, and no error (RFC 6750 §3.1). */
export const BEARER_CHALLENGE = { 'www-authenticate': 'Bearer' }

/** An access token was sent and refused: malformed, badly signed, expired, or its session ended. */
export const INVALID_TOKEN_CHALLENGE = { 'www-authenticate': 'Bearer error="invalid_token"' }

/**
 * Credentials sent in the body were refused (`login`'s email and password, `refreshSession`'s
 * refresh token): no HTTP authentication scheme carries them, so the challenge is a scheme of this
 * API's own, saying that the way in is to sign in. Browsers know no `Login` scheme, so it never
 * makes one open a password dialog (as `Basic` would).
 */
export const LOGIN_CHALLENGE = { 'www-authenticate': 'Login' }

/**
 * An API token was refused for what it may do (RFC 6750 §3.1, on a 403): with the scopes the
 * operation needs, space-separated, or without any where no scope will do (the operation takes no
 * API token). Scopes are the spec's ApiTokenScope values: no quote or backslash to escape.
 */
export const insufficientScopeChallenge = (scopes?: readonly string[]) => ({
  'www-authenticate':
    scopes === undefined
      ? 'Bearer error="insufficient_scope"'
      : `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"`,
})
