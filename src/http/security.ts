// The `bearer` and `apiToken` security schemes, enforced from each operation's `security` in the
// spec, as an onRequest hook: the caller is known before a body is read or validated, so an
// anonymous request gets 401 before 400 and nobody streams an upload we would refuse anyway. Both
// come as `Authorization: Bearer`: an API token by its `blog_` prefix (src/auth/api-tokens/), a JWT
// otherwise (a JWT has dots and no such prefix).
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { looksLikeApiToken } from '../auth/api-tokens/api-token-format.ts'
import { apiTokenNotAllowed, type AccessClaims, type ApiTokenScope, type Principal } from '../auth/principal.ts'
import type { Config } from '../config.ts'
import type { SecurityRequirement } from '../spec.ts'
import { ApiError } from '../errors/api-error.ts'
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE, insufficientScopeChallenge } from '../errors/challenges.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller, or null for an anonymous request. */
    principal: Principal | null
  }
}

const ALGORITHM = 'HS256'

export async function registerJwt(
  app: FastifyInstance,
  config: Pick<Config, 'jwtSecret' | 'jwtIssuer' | 'jwtAudience' | 'accessTokenTtlSeconds'>,
) {
  await app.register(fastifyJwt, {
    secret: config.jwtSecret,
    // @fastify/jwt reads a numeric expiresIn as seconds.
    sign: {
      algorithm: ALGORITHM,
      iss: config.jwtIssuer,
      aud: config.jwtAudience,
      expiresIn: config.accessTokenTtlSeconds,
    },
    // The algorithm is pinned: a token signed otherwise ("none" included) is refused. The issuer,
    // audience and expiry are checked only when present, unless required (RFC 8725 §3.8–3.10).
    verify: {
      algorithms: [ALGORITHM],
      allowedIss: config.jwtIssuer,
      allowedAud: config.jwtAudience,
      requiredClaims: ['exp', 'iss', 'aud'],
    },
  })
  app.decorateRequest('principal', null)
}

const unauthenticated = (code: 'UNAUTHENTICATED' | 'TOKEN_EXPIRED' | 'TOKEN_INVALID', message: string) =>
  new ApiError(401, code, message, [], code === 'UNAUTHENTICATED' ? BEARER_CHALLENGE : INVALID_TOKEN_CHALLENGE)

/** Ids as the service issues them: lower-case UUIDs, which the session lookup can take. */
const ISSUED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function isClaims(value: unknown): value is AccessClaims {
  const claims = value as Partial<Record<keyof AccessClaims, unknown>> | null
  return (
    typeof claims?.sub === 'string' &&
    ISSUED_ID.test(claims.sub) &&
    typeof claims.sid === 'string' &&
    ISSUED_ID.test(claims.sid) &&
    (claims.role === 'user' || claims.role === 'admin')
  )
}

/** How far another instance's clock may run ahead of this one's. */
const CLOCK_SKEW_SECONDS = 60

/**
 * iat and exp as the service issues them: whole seconds, iat not in the future, exp after iat by
 * at most the token lifetime. (The signature check already refused an exp that is not a number
 * or has passed; it takes any iat, and any exp however far away.)
 */
function hasIssuedTimes(value: unknown, lifetimeSeconds: number): boolean {
  const { iat, exp } = value as { iat?: unknown; exp?: unknown }
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return false
  const [issued, expires] = [iat as number, exp as number]
  return issued <= Date.now() / 1000 + CLOCK_SKEW_SECONDS && expires > issued && expires - issued <= lifetimeSeconds
}

/**
 * `Bearer <token>`: the scheme in any case, then one or more spaces (RFC 9110 §11.1, §11.4); tabs
 * are tolerated too. Linear: the classes on either side of the separator do not overlap.
 */
const BEARER = /^bearer[ \t]+([A-Za-z0-9_.-]{1,4096})$/i
const BEARER_SCHEME = /^bearer(?:[ \t]|$)/i

/**
 * The signed-in caller, or null when the request carries no bearer token. Checking a JWT is
 * synchronous (throwing when it is bad); only the session lookup waits, so an anonymous request
 * is decided without a promise. An API token is refused at once where the operation takes none
 * (`takesApiTokens` false), before its checksum or any read.
 */
function readPrincipal(
  app: FastifyInstance,
  request: FastifyRequest,
  takesApiTokens: boolean,
): Promise<Principal> | null {
  const header = request.headers.authorization
  // Another scheme (Basic, Digest, …) carries no access token: the caller sent none of ours, so
  // it is answered as one that sent nothing (RFC 6750 §3.1: `Bearer`, no error).
  if (header === undefined || !BEARER_SCHEME.test(header)) return null
  const match = BEARER.exec(header)
  if (!match) throw unauthenticated('TOKEN_INVALID', 'The Authorization header must be "Bearer <access token>".')
  const token = match[1]!
  if (looksLikeApiToken(token)) {
    if (!takesApiTokens) throw apiTokenNotAllowed()
    return app.services.apiTokens.authenticate(token)
  }
  let claims: unknown
  try {
    claims = app.jwt.verify(token)
  } catch (error) {
    if ((error as { code?: string }).code === 'FAST_JWT_EXPIRED')
      throw unauthenticated('TOKEN_EXPIRED', 'The access token has expired; refresh it.')
    throw unauthenticated('TOKEN_INVALID', 'The access token is not valid.')
  }
  if (!isClaims(claims) || !hasIssuedTimes(claims, app.services.config.accessTokenTtlSeconds))
    throw unauthenticated('TOKEN_INVALID', 'The access token is not valid.')
  // The signature proves who the caller was; the session says whether they still are, and their role now.
  return app.services.auth.authenticate(claims)
}

const insufficientScope = (scopes: readonly string[]) =>
  new ApiError(
    403,
    'INSUFFICIENT_SCOPE',
    `This API token may not do this: it needs the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(', ')}.`,
    [],
    insufficientScopeChallenge(scopes),
  )
const forbidden = () => new ApiError(403, 'FORBIDDEN', 'Your role may not perform this operation.')

/**
 * The hook for one operation, or null for an operation that takes no token. `requirements` is the
 * operation's `security`: alternatives, each a map of scheme → scopes. `bearer`'s scopes are roles,
 * `apiToken`'s what a token must hold (all of one alternative's). `[]` is public; `[{}, {bearer: []}]`
 * is public but knows a signed-in caller; `[{bearer: [admin]}]` needs an admin;
 * `[{bearer: [admin]}, {apiToken: [content:write]}]` also takes a token with `content:write` whose
 * owner is an admin now: a token never does more than its owner may, judged by the role read with it.
 */
export function authorize(app: FastifyInstance, requirements: SecurityRequirement[]): onRequestHookHandler | null {
  const schemeScopes = (scheme: string) =>
    requirements.filter((alternative) => scheme in alternative).map((alternative) => alternative[scheme]!)
  const roleSets = schemeScopes('bearer')
  const tokenScopeSets = schemeScopes('apiToken') as ApiTokenScope[][]
  if (roleSets.length === 0 && tokenScopeSets.length === 0) return null
  const anonymousAllowed =
    requirements.length === 0 || requirements.some((alternative) => Object.keys(alternative).length === 0)
  const roleAllows = (role: string) =>
    roleSets.length === 0 || roleSets.some((roles) => roles.length === 0 || roles.includes(role))
  /** Why `principal` may not perform the operation, or undefined when it may. */
  const refusal = (request: FastifyRequest, principal: Principal | null): ApiError | undefined => {
    if (principal === null) {
      if (anonymousAllowed) return undefined
      return unauthenticated('UNAUTHENTICATED', 'Sign in: this operation needs a bearer access token.')
    }
    request.principal = principal
    if (principal.apiToken !== undefined) {
      // A token presented is judged, even where anonymous callers are served: its scopes first,
      // then its owner's role now, as the `bearer` alternative names it.
      const held = principal.apiToken.scopes
      if (!tokenScopeSets.some((scopes) => scopes.every((scope) => held.includes(scope))))
        return insufficientScope(tokenScopeSets[0]!)
      return roleAllows(principal.role) ? undefined : forbidden()
    }
    return anonymousAllowed || roleAllows(principal.role) ? undefined : forbidden()
  }
  const takesApiTokens = tokenScopeSets.length > 0
  return (request, _reply, done) => {
    // A token that is present but bad is refused even where anonymous access is allowed:
    // silently treating the caller as anonymous would hide an expired session from the client.
    let principal: Promise<Principal> | null
    try {
      principal = readPrincipal(app, request, takesApiTokens)
    } catch (error) {
      done(error as ApiError)
      return
    }
    if (principal === null) done(refusal(request, null))
    else principal.then((known) => done(refusal(request, known)), done)
  }
}
