import { METHODS, type Server } from 'node:http';
import { HttpException, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppConfig, proxyTrust } from '../../config/app-config.js';
import { answerBeforeRouting } from '../before-routing.js';
import { answerClientError } from '../client-error.js';
import { settleClientAddress } from '../client-address.js';
import { closeAfterResponse } from '../lingering-close.js';
import { JSON_CONTENT_TYPE, JsonText } from '../json-text.js';
import { carriesBody, continueOnlyAdmittedBodies, readRequestBody } from '../request-body.js';
import { condemn, framingProblem, misframed, onCondemned } from '../request-framing.js';
import { requestIdFor } from '../request-id.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../problem.js';
import { bodyTermsOf } from './body-reading.js';
import {
  type FrameworkRefusal,
  type HttpPlatform,
  type HttpRequest,
  type PlatformMiddleware,
  type RequestHooks,
  StreamedResponse,
} from './http-platform.js';

const REPLY = Symbol('reply');

/** The methods whose bodies Fastify hands to a content-type parser; it reads no other's. */
const BODY_METHODS: ReadonlySet<string> = new Set(['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT']);

/**
 * Every method Node parses is routed, as on Express, so that each reaches the catch-all (and its
 * guard) instead of Fastify's unguarded 404; and only `BODY_METHODS` bodies are read. Fastify
 * reads `QUERY` bodies by default and refuses a `QUERY` without `Content-Type` with a 400 before
 * any hook or guard: no route takes `QUERY`, so it is answered as Express answers it (the body,
 * never read, closes the connection: the onRequest hook). CONNECT never reaches routing.
 */
function routeEveryMethod(fastify: FastifyInstance): void {
  for (const method of METHODS) {
    if (method === 'CONNECT') continue;
    fastify.addHttpMethod(method, { hasBody: BODY_METHODS.has(method), overrideExisting: true });
  }
}

/** The reply of a request, kept by the onRequest hook (a body parser is given the request only). */
function replyOf(request: FastifyRequest): FastifyReply {
  return (request as { [REPLY]?: FastifyReply })[REPLY]!;
}

/**
 * Nest's Fastify adapter, sending a `JsonText` body as Fastify sends the value it encodes (the
 * same headers, the same bytes) without parsing and serialising it again.
 */
class JsonTextFastifyAdapter extends FastifyAdapter {
  override reply(
    response: Parameters<FastifyAdapter['reply']>[0],
    body: unknown,
    statusCode?: number,
  ): FastifyReply {
    if (body instanceof StreamedResponse && 'header' in response) {
      return streamed(response, body, statusCode);
    }
    // a raw ServerResponse (no Fastify reply) takes the JSON.stringify path: JsonText.toJSON,
    // when Fastify serialises it, so that body is never released here
    if (body instanceof JsonText && 'header' in response) {
      const reply = response;
      // a type set by the handler: the text, sent as a string with that type, as before
      if (reply.getHeader('content-type') !== undefined) {
        const text = body.text;
        body.release();
        return super.reply(reply, text, statusCode);
      }
      return writePieces(reply, body, statusCode);
    }
    return super.reply(response, body, statusCode);
  }
}

/**
 * Sends a `JsonText` as Fastify sends a serialised value (its status and headers, the type a
 * serialised value gets, the length) but writes the pieces one by one on Node's response, as
 * Express does (bench/README.md, "Written piece by piece"): no Buffer of the whole page. Fastify's
 * reply has no per-piece write, so the reply is hijacked; Fastify then runs no onSend hook (the
 * service has none) and still runs its onResponse hooks when the response finishes.
 */
function writePieces(reply: FastifyReply, body: JsonText, statusCode?: number): FastifyReply {
  if (statusCode !== undefined) void reply.status(statusCode);
  // everything that can throw before the hijack, so that a throw is still answered (a 500)
  const parts = body.parts();
  const length = String(body.byteLength());
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) res.setHeader(name, value);
  }
  res.setHeader('content-type', JSON_CONTENT_TYPE);
  res.setHeader('content-length', length);
  res.statusCode = reply.statusCode;
  reply.hijack();
  for (const part of parts) res.write(part, 'utf8');
  body.release();
  res.end();
  return reply;
}

/**
 * Hands a `StreamedResponse` Node's response with the reply's status and headers: the reply is
 * hijacked (Fastify sends nothing more; its onResponse hooks still run when the response ends).
 */
function streamed(reply: FastifyReply, body: StreamedResponse, statusCode?: number): FastifyReply {
  if (statusCode !== undefined) void reply.status(statusCode);
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) res.setHeader(name, value);
  }
  res.statusCode = reply.statusCode;
  reply.hijack();
  body.start(res);
  return reply;
}

/**
 * Fastify under Nest (`HTTP_ADAPTER=fastify`): the lighter of the two per request (bench/README.md,
 * "HTTP adapter"). Options keep what callers get on Express: a trailing slash is ignored, ids
 * longer than Fastify's default 100 characters still reach the validation pipe (a 400, not a
 * router 404), `TRUST_PROXY` decides whether `X-Forwarded-For` is the client address, requests
 * time out as Node's do, and what the router or the HTTP parser refuses is a problem body.
 */
export class FastifyPlatform implements HttpPlatform {
  readonly name = 'fastify' as const;
  readonly catchAllPaths = ['', '*'];

  private hooks: RequestHooks | undefined;
  private instance: FastifyInstance | undefined;

  constructor(private readonly config: AppConfig) {}

  createAdapter(): FastifyAdapter {
    const adapter = new JsonTextFastifyAdapter({
      bodyLimit: this.config.BODY_LIMIT,
      // Node's own default, which Fastify turns off: a client has 5 minutes to send its request
      requestTimeout: 300_000,
      trustProxy: proxyTrust(this.config.TRUST_PROXY),
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
      clientErrorHandler: answerClientError,
      genReqId: requestIdFor,
      // the header is read by requestIdFor, which refuses values unfit for logs and headers
      requestIdHeader: false,
      // what the router refuses before any hook runs (a path that is not valid percent-encoding)
      frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
        // no hook runs for these: the framing is checked here as onRequest checks it, and the
        // answer counted here, as Express counts them
        if (onCondemned(request.raw)) return;
        if (framingProblem(request.raw) !== undefined) condemn(request.raw, reply.raw);
        const started = process.hrtime.bigint();
        reply.raw.once('finish', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          this.hooks?.onResponse(request as unknown as HttpRequest, undefined, 400, seconds);
        });
        const body = problem(
          'malformed_request',
          'the request URL could not be parsed',
          request.id,
        );
        void reply
          .status(400)
          .header('X-Request-Id', request.id)
          .type(PROBLEM_CONTENT_TYPE)
          .send(JSON.stringify(body));
      },
    });
    routeEveryMethod(adapter.getInstance());
    return adapter;
  }

  configure(app: INestApplication, hooks: RequestHooks): void {
    this.hooks = hooks;
    continueOnlyAdmittedBodies(app.getHttpServer() as Server);
    answerBeforeRouting(app.getHttpServer() as Server);
    const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
    this.instance = fastify;
    fastify.removeAllContentTypeParsers();
    // one parser for every media type: readRequestBody checks the credential and the type first
    fastify.addContentTypeParser('*', (request, _payload, done) => {
      readRequestBody({
        request: request as unknown as HttpRequest,
        raw: request.raw,
        route: this.routeOf(request as unknown as HttpRequest),
        admits: hooks.admitsBody,
        ...bodyTermsOf(this.config, replyOf(request).raw),
      }).then(
        (body) => done(null, body),
        (err: unknown) => done(err as Error),
      );
    });
    fastify.addHook('onRequest', (request, reply, done) => {
      // after a misframed request on its connection: never handled, the connection is closing
      if (onCondemned(request.raw)) return;
      (request as { [REPLY]?: FastifyReply })[REPLY] = reply;
      settleClientAddress(request);
      // Fastify never reads the body of a GET, HEAD or other method no route reads a body of (no
      // parser runs): as on Express, the connection is not kept
      if (!BODY_METHODS.has(request.method) && carriesBody(request.raw)) {
        closeAfterResponse(reply.raw);
      }
      reply.header('X-Request-Id', request.id);
      done(misframed(request.raw, reply.raw));
    });
    // after the body has been read: the hook's async context is the guard's and the handler's
    // whatever the body's stream callbacks did to it
    fastify.addHook('preHandler', (_request, reply, done) => hooks.beforeHandler(reply.raw, done));
    fastify.addHook('onResponse', (request, reply, done) => {
      const req = request as unknown as HttpRequest;
      hooks.onResponse(req, this.routeOf(req), reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  /** Fastify's own not-found handler covers every path (Nest installs it). */
  afterRoutes(): void {}

  /** Fastify reads bodies itself (content-type parsers, `configure`). */
  middleware(): PlatformMiddleware[] {
    return [];
  }

  methodsOnPath(req: HttpRequest): string[] {
    const request = req as unknown as FastifyRequest;
    // a route without `*` answering here is the catch-all of the prefix itself (`''`), whose
    // path no other route has; Fastify's own not-found handler has no route (no url)
    const params = request.params as Record<string, unknown>;
    if (request.routeOptions.url !== undefined && !('*' in params)) return [];
    const fastify = this.instance!;
    return fastify.supportedMethods.filter((method) => {
      const found = fastify.findRoute({ method, url: request.url });
      // the catch-all (`*`) is there for every method
      return found !== null && !('*' in (found.params as Record<string, unknown>));
    });
  }

  routeOf(req: HttpRequest): string | undefined {
    const pattern = (req as unknown as FastifyRequest).routeOptions.url;
    return pattern?.includes('*') ? undefined : pattern;
  }

  refusalOf(err: unknown): FrameworkRefusal | undefined {
    // Nest hands Fastify's 4xx errors on as an HttpException with the original as its cause
    const cause = err instanceof HttpException ? err.cause : err;
    const { code, statusCode } = (cause ?? {}) as { code?: unknown; statusCode?: number };
    if (typeof code !== 'string' || !code.startsWith('FST_ERR') || (statusCode ?? 500) >= 500) {
      return undefined;
    }
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { kind: 'payload_too_large' };
    if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return { kind: 'unreadable_body', reason: 'request.size.invalid' };
    }
    if (code.startsWith('FST_ERR_CTP')) return { kind: 'unreadable_body', reason: code };
    return { kind: 'malformed_request', detail: 'the request could not be parsed' };
  }

  sent(res: unknown): boolean {
    const reply = res as FastifyReply;
    return reply.sent || reply.raw.headersSent;
  }

  send(res: unknown, status: number, headers: Record<string, string>, body: string | object): void {
    void (res as FastifyReply).status(status).headers(headers).send(body);
  }
}
