import type { IncomingMessage } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The request's body as Node's readable stream, for a route whose admission left it unread
 * (`BodyTerms.stream`): Express's request is Node's, Fastify's wraps it as `raw`.
 */
export const RequestStream = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): IncomingMessage => {
    const req = ctx.switchToHttp().getRequest<IncomingMessage & { raw?: IncomingMessage }>();
    return req.raw ?? req;
  },
);
