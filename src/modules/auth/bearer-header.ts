/** The token of an `Authorization: Bearer` header (RFC 6750 §2.1: one or more spaces after the scheme). */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}
