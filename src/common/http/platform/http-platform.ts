import type { INestApplication } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** The HTTP servers the service runs on (`HTTP_ADAPTER`). */
export const HTTP_ADAPTERS = ['express', 'fastify'] as const;
export type HttpAdapterName = (typeof HTTP_ADAPTERS)[number];

/**
 * A request as the rest of the service reads it, whatever the server under Nest: both Express's
 * and Fastify's request objects have these members, with the same meaning.
 */
export interface HttpRequest {
  /** The request id (`X-Request-Id` when the caller sent a sane one). */
  readonly id: string;
  /**
   * The caller's address (`TRUST_PROXY` decides whether `X-Forwarded-For` counts); undefined when
   * unknown, as when the chosen `X-Forwarded-For` entry is not an address (client-address.ts).
   */
  readonly ip: string | undefined;
  /** The connection the request came on (its peer: the client, or the closest proxy). */
  readonly socket?: { readonly remoteAddress?: string } | null;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON or form body; undefined for other media types. */
  readonly body?: unknown;
  readonly params: Record<string, string | undefined>;
}

/**
 * What a handler returns instead of a body when it writes the response itself, over time, on
 * Node's response (an event stream). Both adapters hand `start` Node's response with the status
 * and headers set so far (X-Request-Id, …) and send nothing of their own; their end-of-response
 * hooks (request log, metrics) still run when it ends.
 */
export abstract class StreamedResponse {
  abstract start(res: ServerResponse): void;
}

/** The response members a handler or guard may use (`@Res({ passthrough: true })`). */
export interface HttpResponse {
  status(code: number): HttpResponse;
  header(name: string, value: string | number): HttpResponse;
}

/** Connect-style middleware, as Nest applies it to every route. */
export type PlatformMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** A refusal of the server itself, before or around a route, in the service's terms. */
export type FrameworkRefusal =
  | { kind: 'payload_too_large' }
  | { kind: 'malformed_request'; detail: string }
  | { kind: 'unreadable_body'; reason: string };

/**
 * Everything that differs between Express and Fastify; nothing outside this folder imports either
 * (an eslint rule enforces it). Both implementations give callers the same answers: same status,
 * headers and bodies, same request ids, route patterns and log lines.
 */
export interface HttpPlatform {
  readonly name: HttpAdapterName;
  /** Route paths that match every path (under the global prefix), in the router's syntax. */
  readonly catchAllPaths: string[];
  /** The Nest adapter the application is created with. */
  createAdapter(): AbstractHttpAdapter;
  /**
   * Installs what runs around every request before Nest's own middleware: request ids, client
   * errors of Node's HTTP parser, body parsing (Fastify) and the per-request `hooks`, which
   * `middleware()` uses too.
   */
  configure(app: INestApplication, hooks: RequestHooks): void;
  /**
   * Runs once every route is registered, before Nest's own not-found and error handlers: what
   * matches no route at all (outside `/api/v1` too) is a 404 problem on both adapters.
   */
  afterRoutes(): void;
  /**
   * Middleware Nest runs after the modules' own (the request logger): body parsing on Express,
   * which must come after the log line has been set up so a refused body is logged too.
   */
  middleware(): PlatformMiddleware[];
  /**
   * The matched route pattern (`/api/v1/projects/:projectId`); undefined when no route matched or
   * only a catch-all (the 404 route, middleware applied to every path).
   */
  routeOf(req: HttpRequest): string | undefined;
  /**
   * The methods of the routes on the request's path, as its router matches paths (catch-alls
   * never count): empty for a path no route has. For a request that reached no route of its own
   * method, it tells a 405 from a 404.
   */
  methodsOnPath(req: HttpRequest): string[];
  /** What the server refused on its own (an undecodable URL, a body over the limit), if `err` is that. */
  refusalOf(err: unknown): FrameworkRefusal | undefined;
  /** Whether the response has been sent (or its head written). */
  sent(res: unknown): boolean;
  /** Sends a whole response: `body` is sent as is when a string, as JSON otherwise. */
  send(res: unknown, status: number, headers: Record<string, string>, body: string | object): void;
}

/** How an admitted request's body is read. */
export interface BodyTerms {
  /** Whether an `application/x-www-form-urlencoded` body is read too (JSON always is). */
  readonly forms: boolean;
  /** A limit of the route's own, below the server's (`BODY_LIMIT`). */
  readonly limit?: number;
  /**
   * The one media type (lowercase, without parameters) of a route that reads its body itself, as
   * a stream (`@RequestStream()`): such a body, once admitted, is left unread here, and no
   * whole-body limit applies (the route bounds what it holds). Any other media type is 415.
   */
  readonly stream?: string;
  /**
   * Whose bodies wait for one another before they are read when big (request-body.ts): the
   * tenant or the platform key. None: the client's address.
   */
  readonly party?: string;
}

/**
 * Asks whether a request's body may be read, and how: the credential it carries is checked first
 * (a route that authenticates from its body is admitted as it is). Null: it is not read.
 */
export type BodyAdmission = (req: HttpRequest, route: string) => Promise<BodyTerms | null>;

/** Per-request hooks the platform runs at fixed points of every request. */
export interface RequestHooks {
  /**
   * Whether a request's body may be read, and how, asked before any byte of it is
   * (`readRequestBody`).
   */
  admitsBody: BodyAdmission;
  /**
   * Runs once the body has been read, just before guards and handler: the rest of the request runs
   * inside `next`, so in whatever async context the hook opens. `res` is Node's response.
   */
  beforeHandler(res: ServerResponse, next: () => void): void;
  /** Runs when the response has been sent: for metrics. Must not throw (an event listener). */
  onResponse(req: HttpRequest, route: string | undefined, status: number, seconds: number): void;
}
