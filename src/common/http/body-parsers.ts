import { parse as parseForm } from 'node:querystring';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A body that could not be read as its content type says; the problem filter maps `type`. */
export class BodyError extends Error {
  constructor(
    readonly type: 'entity.parse.failed' | 'charset.unsupported',
    message: string,
  ) {
    super(message);
  }
}

const UTF8 = new Set(['utf-8', 'utf8']);

function assertUtf8(req: FastifyRequest): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset && !UTF8.has(charset.toLowerCase())) {
    throw new BodyError('charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`);
  }
}

/**
 * The request bodies the API reads, both limited to `BODY_LIMIT` (a larger body is a 413):
 * - JSON (`application/json`): an object or an array, as `JSON.parse` reads it — a key named
 *   `__proto__` stays data, never a prototype; an empty body is `{}`; any other top-level value
 *   is malformed;
 * - forms (`application/x-www-form-urlencoded`, what OAuth clients send to the token endpoint):
 *   flat keys, repeated keys as arrays, at most 1,000 keys.
 * Any other content type is not read: its route sees no body and answers its own 400.
 */
export function registerBodyParsers(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit },
    (req, body: string, done) => {
      try {
        assertUtf8(req);
        const text = body.trim();
        if (text === '') return done(null, {});
        if (text[0] !== '{' && text[0] !== '[') {
          throw new BodyError('entity.parse.failed', 'the body is not a JSON object or array');
        }
        done(null, JSON.parse(text));
      } catch (err) {
        done(
          err instanceof BodyError ? err : new BodyError('entity.parse.failed', 'malformed JSON'),
        );
      }
    },
  );
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (req, body: string, done) => {
      try {
        assertUtf8(req);
        done(null, { ...parseForm(body) });
      } catch (err) {
        done(err as Error);
      }
    },
  );
  fastify.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
}
