import type { Server } from 'node:http';
import { HttpException, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppConfig, proxyTrust } from '../../config/app-config.js';
import { answerClientError } from '../client-error.js';
import { closeAfterResponse, whenResponseClosed } from '../lingering-close.js';
import { JSON_CONTENT_TYPE, JsonText } from '../json-text.js';
import { jsonLimitsOf } from '../json-limits.js';
import { carriesBody, continueOnlyAdmittedBodies, readRequestBody } from '../request-body.js';
import { condemn, framingProblem, misframed, onCondemned } from '../request-framing.js';
import { requestIdFor } from '../request-id.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../problem.js';
import type {
  FrameworkRefusal,
  HttpPlatform,
  HttpRequest,
  PlatformMiddleware,
  RequestHooks,
} from './http-platform.js';

const REPLY = Symbol('reply');

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

  constructor(private readonly config: AppConfig) {}

  createAdapter(): FastifyAdapter {
    return new JsonTextFastifyAdapter({
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
  }

  configure(app: INestApplication, hooks: RequestHooks): void {
    this.hooks = hooks;
    continueOnlyAdmittedBodies(app.getHttpServer() as Server);
    const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
    fastify.removeAllContentTypeParsers();
    // one parser for every media type: readRequestBody checks the credential and the type first
    fastify.addContentTypeParser('*', (request, _payload, done) => {
      readRequestBody({
        request: request as unknown as HttpRequest,
        raw: request.raw,
        route: this.routeOf(request as unknown as HttpRequest),
        limit: this.config.BODY_LIMIT,
        jsonLimits: jsonLimitsOf(this.config),
        admits: hooks.admitsBody,
        closeAfterResponse: () => closeAfterResponse(replyOf(request).raw),
        onResponseClosed: (listener) => whenResponseClosed(replyOf(request).raw, listener),
        response: replyOf(request).raw,
      }).then(
        (body) => done(null, body),
        (err: unknown) => done(err as Error),
      );
    });
    fastify.addHook('onRequest', (request, reply, done) => {
      // after a misframed request on its connection: never handled, the connection is closing
      if (onCondemned(request.raw)) return;
      (request as { [REPLY]?: FastifyReply })[REPLY] = reply;
      // Fastify never reads a GET or HEAD body (no parser runs): as on Express, it is not kept
      if ((request.method === 'GET' || request.method === 'HEAD') && carriesBody(request.raw)) {
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
