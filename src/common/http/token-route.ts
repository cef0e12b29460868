/**
 * The token endpoint's route pattern, as the router matches it. Requests to it are told apart by
 * it: its body is read before authentication (it authenticates from it) and may be a form, errors
 * there are answered in RFC 6749 shape (the problem filter is told so), and its rate limit is its
 * own.
 */
export const TOKEN_ROUTE = '/api/v1/oauth/token';

/** Bodies of the token endpoint are a few hundred bytes; more is refused before decoding. */
export const TOKEN_BODY_LIMIT = 16 * 1024;
