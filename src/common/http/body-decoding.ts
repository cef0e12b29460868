import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { ValidationFailedError } from './app-error.js';
import { jsonLimitProblem, type JsonLimits } from './json-limits.js';
import { utf8Problem } from './text.js';
import { inexactNumber } from './json-numbers.js';

export type BodyErrorType =
  | 'entity.parse.failed'
  | 'entity.too.large'
  | 'charset.unsupported'
  | 'encoding.unsupported'
  | 'media.unsupported'
  | 'request.size.invalid';

/** A body that could not be read as its headers say; the problem filter answers by `type`. */
export class BodyError extends Error {
  constructor(
    readonly type: BodyErrorType,
    message: string,
  ) {
    super(message);
  }
}

/** The bodies the API reads; any other media type is not read (its route sees no body). */
export type BodyKind = 'json' | 'form';

const UTF8 = new Set(['utf-8', 'utf8']);
/**
 * A compressed body may expand to at most this many times its size (and never past the limit):
 * JSON compresses 5-20 times, a bomb thousands of times.
 */
const MAX_EXPANSION = 50;
/** Small bodies expand more (headers and dictionaries dominate); up to this size is always fine. */
const EXPANSION_FLOOR = 64 * 1024;
const DECOMPRESS: Record<string, ((buf: Buffer, options: ZlibOptions) => Buffer) | undefined> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** Which body a request carries, from its `Content-Type` (parameters and case ignored). */
export function bodyKindOf(contentType: string | undefined): BodyKind | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
}

/**
 * The body as text: `Content-Encoding` gzip, deflate or br is decompressed (at most `limit`
 * bytes and `MAX_EXPANSION` times its size once decompressed, so a small bomb is a 413 too), and
 * the charset must be UTF-8: bytes that are not UTF-8 are refused (naming the field they sit
 * in), never replaced with U+FFFD.
 */
export function bodyText(headers: IncomingHttpHeaders, body: Buffer, limit: number): string {
  const utf8 = (bytes: Buffer): string => {
    const problem = utf8Problem(bytes, bodyKindOf(headers['content-type']));
    if (problem) {
      throw Object.assign(
        new BodyError('entity.parse.failed', `${problem.field}: ${problem.message}`),
        {
          errors: [problem],
        },
      );
    }
    return bytes.toString('utf8');
  };
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (charset && !UTF8.has(charset.toLowerCase())) {
    throw new BodyError('charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`);
  }
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return utf8(body);
  const decompress = DECOMPRESS[encoding];
  if (!decompress) {
    throw new BodyError('encoding.unsupported', `unsupported content encoding "${encoding}"`);
  }
  let decompressed: Buffer;
  try {
    const maxOutputLength = Math.min(limit, Math.max(EXPANSION_FLOOR, body.length * MAX_EXPANSION));
    decompressed = decompress(body, { maxOutputLength });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BodyError('entity.too.large', 'the request body is too large');
    }
    throw new BodyError('entity.parse.failed', `the body is not valid ${encoding} data`);
  }
  return utf8(decompressed);
}

export function parseJson(text: string, limits: JsonLimits): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (trimmed[0] !== '{' && trimmed[0] !== '[') {
    throw new BodyError('entity.parse.failed', 'the body is not a JSON object or array');
  }
  // counted before anything is built: 1.7 million `{}` in 5 MB exhausted a 256 MB heap
  const tooLarge = jsonLimitProblem(trimmed, limits);
  if (tooLarge) throw new ValidationFailedError([tooLarge]);
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new BodyError('entity.parse.failed', 'malformed JSON');
  }
  const inexact = inexactNumber(trimmed);
  if (inexact) {
    throw Object.assign(
      new BodyError('entity.parse.failed', `${inexact.field}: ${inexact.message}`),
      { errors: [inexact] },
    );
  }
  return value;
}

/**
 * The request bodies the API reads, from the bytes as received (at most `BODY_LIMIT`, checked by
 * the platform that read them):
 * - JSON (`application/json`): an object or an array, as `JSON.parse` reads it — a key named
 *   `__proto__` stays data, never a prototype; an empty body is `{}`; any other top-level value
 *   is malformed;
 * - forms (`application/x-www-form-urlencoded`, what OAuth clients send to the token endpoint):
 *   flat keys, repeated keys as arrays, at most 1,000 keys.
 * Throws `BodyError`, or `ValidationFailedError` for JSON past `limits` (`jsonLimitProblem`,
 * counted on the text before it is parsed).
 */
export function decodeBody(
  kind: BodyKind,
  headers: IncomingHttpHeaders,
  raw: Buffer,
  limit: number,
  limits: JsonLimits,
): unknown {
  const text = bodyText(headers, raw, limit);
  return kind === 'json' ? parseJson(text, limits) : { ...parseForm(text) };
}
