/** The token of an `Authorization: Bearer` header (RFC 6750 §2.1: one or more spaces after the scheme). */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/**
 * Whether the header uses the Bearer scheme at all. A header of another scheme (`Basic`, `Token`)
 * carries no bearer token: it is answered `unauthenticated` (docs/integrators/errors.md), with no error code in
 * `WWW-Authenticate` (RFC 6750 §3.1: an unsupported method); a Bearer header whose token is
 * missing or malformed is `invalid_token`.
 */
export function usesBearerScheme(authorization: string | undefined): boolean {
  return /^Bearer(\s|$)/i.test(authorization ?? '');
}
