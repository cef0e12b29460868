/** RFC 6749 §5.2 error of the token endpoint; answered as `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error:
      'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}
