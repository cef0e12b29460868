import { applyDecorators, Header } from '@nestjs/common';

/**
 * For a response that carries a secret (a token, a lock token, a signing secret): no cache or
 * proxy keeps it (RFC 6749 §5.1 asks the token endpoint for exactly these two headers).
 */
export const NoStore = (): MethodDecorator =>
  applyDecorators(Header('Cache-Control', 'no-store'), Header('Pragma', 'no-cache'));
