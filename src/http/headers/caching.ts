// Cache-Control values the handlers send.

/** An answer carrying credentials (a token pair, a new API token) is kept by no cache (RFC 6749 §5.1). */
export const NO_STORE = 'no-store'
