import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { CallerGoneError } from '../concurrency/caller-signal.js';
import { FairSlots } from '../concurrency/fair-slots.js';
import { KeyedSlots } from '../concurrency/keyed-slots.js';
import { isBigBody } from './big-body.js';
import { declaredLength, readBodyBytes } from './body-bytes.js';
import { atMinimumRate, type BodyRate } from './body-rate.js';
import { BodyError, bodyKindOf, decodeBody } from './body-decoding.js';
import type { JsonLimits } from './json-limits.js';
import { decodeBigJsonOffLoop } from './json-worker-pool.js';
import { releasePrepared } from './prepared-json.js';
import { collectYoungGarbage } from './young-garbage.js';
import type { BodyAdmission, BodyTerms, HttpRequest } from './platform/http-platform.js';

export interface BodyReading {
  /** The request as the handler sees it (Express's or Fastify's). */
  readonly request: HttpRequest;
  /** The Node request whose bytes are read. */
  readonly raw: IncomingMessage;
  /** The matched route pattern; undefined when none matched (the 404 route). */
  readonly route: string | undefined;
  readonly limit: number;
  /** The least the body must bring while it is read. */
  readonly rate: BodyRate;
  /** What a JSON body's members may hold (`CONTENT_MAX_NODES`, `CONTENT_MAX_DEPTH`). */
  readonly jsonLimits: JsonLimits;
  readonly admits: BodyAdmission;
  /** Called when the answer must close the connection: a body was left unread. */
  readonly closeAfterResponse: () => void;
  /** Runs `listener` once the response has been sent or the connection has closed. */
  readonly onResponseClosed: (listener: () => void) => void;
  /** The Node response: its `100 Continue`, for a client that waits for it before its body. */
  readonly response: ServerResponse;
}

/**
 * Node answers `Expect: 100-continue` with `100 Continue` as soon as the head is in, before anyone
 * knows who is calling: an unknown caller would be invited to send its body. With this listener
 * the request is handled as any other, and `readRequestBody` sends the `100 Continue` itself, once
 * the body is admitted (docs/operators/security.md: no body byte for a request without a valid credential).
 */
export function continueOnlyAdmittedBodies(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // nothing to invite: Node would close a connection whose client still waits for a 100
    if (!carriesBody(req)) res.writeContinue();
    else waiting.add(res);
    server.emit('request', req, res);
  });
}

/** Responses whose client waits for `100 Continue` (Node's own reading of `Expect`). */
const waiting = new WeakSet<ServerResponse>();

/** Invites the body of a client that waits for `100 Continue`, unless it is declared too big. */
function invite(reading: BodyReading, limit: number): void {
  const { raw, response } = reading;
  if (!waiting.has(response) || response.headersSent) return;
  // a declared length past the limit is answered 413 without reading: nothing to invite
  if (Number(raw.headers['content-length']) > limit) return;
  response.writeContinue();
}

/**
 * One big body at a time per process, from decoding it to its response: the long synchronous
 * steps of several big bodies would otherwise run back to back and hold every other request
 * (an authenticated probe waited 4-6 s behind 20 stagings of 5 MiB). In turn, the steps of the
 * one big body in progress interleave with small requests, which are never held. The slot is
 * taken once the bytes are in, so a client that uploads slowly holds no one else up, and a client
 * that closes its connection while its body waits leaves the queue. One key: first come first
 * served.
 */
const bigBodies = new FairSlots<null>(1);

/**
 * Bodies that may be big a party (a tenant, a platform key) may have in reading or read and
 * waiting for the slot above, at once: one waits while the next is read, so the slot never waits
 * for a read. A further one waits before a byte of it is read (its bytes stay in the kernel, its
 * `100 Continue` is not sent); a body leaves the count once in the slot (its bytes go to the JSON
 * worker), or once read if it is not big after all. So the main thread holds two 5 MB bodies per
 * party besides the one in the slot, not every one sent at once (bench/README.md, "Issue 34: …
 * session 24"). Per party, so a slow uploader holds up only its own party's next bodies, and the
 * minimum body rate still cuts it.
 */
const BIG_READS_PER_PARTY = 2;
const bigReads = new KeyedSlots();

const DEFERRED = Symbol('deferredBodyError');

/**
 * Whether the request carries body bytes (RFC 9112 §6.3): any `Transfer-Encoding`, or a
 * `Content-Length` other than 0.
 */
export function carriesBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && !/^0+$/.test(length.trim());
}

/**
 * Reads and decodes a request's body, in the order docs/operators/security.md gives: no byte is read for a
 * request the admission refuses (one without a valid credential, unless its route authenticates
 * from its body), nor for one that matched no route; the media type is checked from the headers
 * alone (forms only where the admission's terms take them); then the bytes are read up to
 * `limit` (or the route's own, lower one). The body is returned (undefined when none was read);
 * what the body gets wrong is kept for `takeDeferredBodyError`, which runs after the guards, so
 * that a wrong body with a token lacking the scope is still a 403 (the order of the checks, docs/integrators/errors.md).
 */
export async function readRequestBody(reading: BodyReading): Promise<unknown> {
  const { raw, route } = reading;
  if (raw.method === 'GET' || raw.method === 'HEAD') {
    // never read; closing spares reading through it to keep the connection
    if (carriesBody(raw)) reading.closeAfterResponse();
    return undefined;
  }
  const kind = bodyKindOf(raw.headers['content-type']);
  // an empty JSON or form body reads as {}, with nothing to read
  if (!carriesBody(raw)) return kind ? {} : undefined;
  const terms = route === undefined ? null : await admitted(reading, route);
  if (!terms) {
    reading.closeAfterResponse();
    return undefined;
  }
  if (terms.stream !== undefined) return streamedBody(reading, terms.stream);
  if (kind === undefined || (kind === 'form' && !terms.forms)) {
    reading.closeAfterResponse();
    defer(reading.request, new BodyError('media.unsupported', 'unsupported media type'));
    return undefined;
  }
  const limit = Math.min(terms.limit ?? reading.limit, reading.limit);
  // a client gone while its big body waits (to be read, or for the slot) leaves the queue
  let gone: AbortSignal | undefined;
  const goneSignal = (): AbortSignal => (gone ??= closedSignal(reading));
  try {
    let readTurn = (): void => {};
    if (mayBeBig(reading, limit)) {
      const party = terms.party ?? `address:${raw.socket.remoteAddress ?? ''}`;
      readTurn = await bigReads.acquire(party, BIG_READS_PER_PARTY, goneSignal());
      reading.onResponseClosed(readTurn);
    }
    invite(reading, limit);
    const bytes = await atMinimumRate(raw, reading.rate, readBodyBytes(raw, limit));
    // held until the response: decoding, parsing and handling a big body
    if (isBigBody(bytes.length, raw.headers['content-encoding'])) {
      reading.onResponseClosed(await bigBodies.acquire(null, goneSignal));
      // in the slot, its bytes go to the worker: the party's next body may be read meanwhile
      readTurn();
      reading.onResponseClosed(() => setImmediate(collectYoungGarbage));
      // decoded, parsed, checked and hashed off the event loop (json-prepare.ts)
      if (kind === 'json') {
        // the socket's chunks of the bytes are garbage now, and the bytes go to the worker
        setImmediate(collectYoungGarbage);
        const body = await decodeBigJsonOffLoop(raw.headers, bytes, limit, reading.jsonLimits);
        // once answered in full, the handler is done with it (a connection closed early may not be)
        reading.onResponseClosed(() => {
          if (reading.response.writableFinished) releasePrepared(body);
        });
        return body;
      }
    }
    readTurn();
    return decodeBody(kind, raw.headers, bytes, limit, reading.jsonLimits);
  } catch (err) {
    // nobody to answer: no guard, handler or problem runs for it (the filter drops it)
    if (err instanceof CallerGoneError) throw err;
    // a refused body is not read to its end, so the connection is not reused
    if (!raw.complete) reading.closeAfterResponse();
    defer(reading.request, bodyErrorOf(err));
    return undefined;
  }
}

/**
 * A body its route reads itself (`BodyTerms.stream`): left unread for the handler when it has the
 * route's media type (the client waiting for `100 Continue` is invited), else 415 as any other.
 */
function streamedBody(reading: BodyReading, mediaType: string): undefined {
  const type = (reading.raw.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== mediaType) {
    reading.closeAfterResponse();
    defer(reading.request, new BodyError('media.unsupported', 'unsupported media type'));
    return undefined;
  }
  // read as it arrives, line by line: neither compressed nor in another charset than UTF-8
  const encoding = (reading.raw.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(
    reading.raw.headers['content-type'] ?? '',
  );
  const refusal =
    encoding !== 'identity'
      ? new BodyError('encoding.unsupported', `unsupported content encoding "${encoding}"`)
      : charset && !['utf-8', 'utf8'].includes(charset[1]!.toLowerCase())
        ? new BodyError('charset.unsupported', `unsupported charset "${charset[1]!.toUpperCase()}"`)
        : undefined;
  if (refusal) {
    reading.closeAfterResponse();
    defer(reading.request, refusal);
    return undefined;
  }
  invite(reading, Number.POSITIVE_INFINITY);
  return undefined;
}

/** Aborts once the response has been sent or the connection has closed. */
function closedSignal(reading: BodyReading): AbortSignal {
  const closed = new AbortController();
  reading.onResponseClosed(() => closed.abort());
  return closed.signal;
}

/**
 * Whether the body may be big within `limit`: by its declared length, or, chunked, by the limit
 * (a compressed one by what it may expand to). One declared past the limit is refused unread.
 */
function mayBeBig(reading: BodyReading, limit: number): boolean {
  const length = declaredLength(reading.raw);
  if (length !== undefined && length > limit) return false;
  return isBigBody(length ?? limit, reading.raw.headers['content-encoding']);
}

/** The admission's answer; when it fails (the database is down), the unread body closes too. */
async function admitted(reading: BodyReading, route: string): Promise<BodyTerms | null> {
  try {
    return await reading.admits(reading.request, route);
  } catch (err) {
    reading.closeAfterResponse();
    throw err;
  }
}

function defer(request: object, err: Error): void {
  (request as { [DEFERRED]?: Error })[DEFERRED] = err;
}

/**
 * The big-body slot's holders (1 at most) and waiters now, and the bodies whose client left while
 * they waited.
 */
export function bigBodyTurns(): { inUse: number; waiting: number; left: number } {
  return { inUse: bigBodies.inUse, waiting: bigBodies.waiting, left: bigBodies.left };
}

/** Parties with a big body read or held now, and big bodies waiting to be read. */
export function bigBodyReads(): { parties: number; waiting: number } {
  return { parties: bigReads.size, waiting: bigReads.waiting };
}

/** The body's error kept by `readRequestBody`, if any: thrown once the guards have passed. */
export function takeDeferredBodyError(request: object): Error | undefined {
  return (request as { [DEFERRED]?: Error })[DEFERRED];
}

/** What raw-body reports, as a body error the problem filter knows. */
function bodyErrorOf(err: unknown): Error {
  if (err instanceof BodyError) return err;
  const type = (err as { type?: unknown }).type;
  if (type === 'entity.too.large') return new BodyError(type, 'the request body is too large');
  if (type === 'request.size.invalid' || type === 'request.aborted') {
    return new BodyError('request.size.invalid', 'the body ended before its Content-Length');
  }
  // the HTTP parser refused the framing (e.g. `Transfer-Encoding: identity`) after the head: the
  // client was answered 400 by it already, and the stream has nothing to read
  if (type === 'stream.not.readable') {
    return new BodyError('request.size.invalid', 'the request body could not be read');
  }
  return err instanceof Error ? err : new BodyError('entity.parse.failed', String(err));
}
