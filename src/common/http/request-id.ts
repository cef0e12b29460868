import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a caller's `X-Request-Id` may hold to be kept (a token safe in logs and headers). */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A caller's `X-Request-Id` when it is a sane token (so it cannot inject into logs or headers),
 * otherwise a fresh one. Given by the HTTP platform first thing: the id of the request everywhere
 * (its log lines, problem bodies, audit lines, the `X-Request-Id` response header).
 */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}
