import { parse as parseForm } from 'node:querystring';
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export type BodyErrorType =
  'entity.parse.failed' | 'entity.too.large' | 'charset.unsupported' | 'encoding.unsupported';

/** A body that could not be read as its headers say; the problem filter answers by `type`. */
export class BodyError extends Error {
  constructor(
    readonly type: BodyErrorType,
    message: string,
  ) {
    super(message);
  }
}

const UTF8 = new Set(['utf-8', 'utf8']);
const DECOMPRESS: Record<string, ((buf: Buffer, options: ZlibOptions) => Buffer) | undefined> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * The body as text: `Content-Encoding` gzip, deflate or br is decompressed (at most `limit`
 * bytes once decompressed, so a small bomb is a 413 too), and the charset must be UTF-8.
 */
function bodyText(req: FastifyRequest, body: Buffer, limit: number): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset && !UTF8.has(charset.toLowerCase())) {
    throw new BodyError('charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`);
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return body.toString('utf8');
  const decompress = DECOMPRESS[encoding];
  if (!decompress) {
    throw new BodyError('encoding.unsupported', `unsupported content encoding "${encoding}"`);
  }
  try {
    return decompress(body, { maxOutputLength: limit }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BodyError('entity.too.large', 'the request body is too large');
    }
    throw new BodyError('entity.parse.failed', `the body is not valid ${encoding} data`);
  }
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (trimmed[0] !== '{' && trimmed[0] !== '[') {
    throw new BodyError('entity.parse.failed', 'the body is not a JSON object or array');
  }
  try {
    return JSON.parse(trimmed);
  } catch {
    throw new BodyError('entity.parse.failed', 'malformed JSON');
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
  const options = { parseAs: 'buffer' as const, bodyLimit };
  fastify.addContentTypeParser('application/json', options, (req, body: Buffer, done) => {
    try {
      done(null, parseJson(bodyText(req, body, bodyLimit)));
    } catch (err) {
      done(err as Error);
    }
  });
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    options,
    (req, body: Buffer, done) => {
      try {
        done(null, { ...parseForm(bodyText(req, body, bodyLimit)) });
      } catch (err) {
        done(err as Error);
      }
    },
  );
  fastify.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
}
