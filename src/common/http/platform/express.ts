import type { Server } from 'node:http';
import { HttpException, type INestApplication, NotFoundException } from '@nestjs/common';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import express, { type Request, type Response } from 'express';
import { type AppConfig, proxyTrust } from '../../config/app-config.js';
import { answerBeforeRouting } from '../before-routing.js';
import { answerClientError } from '../client-error.js';
import { settleClientAddress } from '../client-address.js';
import { closeAfterResponse } from '../lingering-close.js';
import { JSON_CONTENT_TYPE, JsonText } from '../json-text.js';
import { carriesBody, continueOnlyAdmittedBodies, readRequestBody } from '../request-body.js';
import { misframed, onCondemned } from '../request-framing.js';
import { requestIdFor } from '../request-id.js';
import { ExpressRoutes, type RouteLayer, routedPath } from './express-routes.js';
import { bodyTermsOf } from './body-reading.js';
import {
  type FrameworkRefusal,
  type HttpPlatform,
  type HttpRequest,
  type PlatformMiddleware,
  type RequestHooks,
  StreamedResponse,
} from './http-platform.js';

/**
 * Nest's Express adapter, sending a `JsonText` body as `res.json` sends the value it encodes (the
 * same headers, the same bytes) without parsing and serialising it again.
 */
class JsonTextExpressAdapter extends ExpressAdapter {
  override reply(response: unknown, body: unknown, statusCode?: number): unknown {
    if (body instanceof StreamedResponse) {
      const res = response as Response;
      if (statusCode !== undefined) res.status(statusCode);
      // Express's response is Node's
      body.start(res);
      return res;
    }
    if (!(body instanceof JsonText)) return super.reply(response, body, statusCode);
    const res = response as Response;
    if (statusCode !== undefined) res.status(statusCode);
    // a type set by the handler gets the charset res.send adds to a string's type, as before
    if (res.get('Content-Type')) {
      const text = body.text;
      body.release();
      return res.send(text);
    }
    // what res.json sends: this type, the length, and the text's UTF-8 bytes, written piece by
    // piece (no Buffer of the whole page: bench/README.md, "Written piece by piece")
    res.set('Content-Type', JSON_CONTENT_TYPE);
    res.set('Content-Length', String(body.byteLength()));
    for (const part of body.parts()) res.write(part, 'utf8');
    body.release();
    return res.end();
  }
}

/** Fastify's default, kept on Express so a load balancer sees the same idle connections. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Express under Nest, the default (`HTTP_ADAPTER=express`). Routing is made to match Fastify's:
 * case-sensitive, a trailing slash ignored. Bodies are read by this service (not body-parser), so
 * both adapters decode, limit and refuse them alike (body-decoding.ts).
 */
export class ExpressPlatform implements HttpPlatform {
  readonly name = 'express' as const;
  readonly catchAllPaths = ['', '{*path}'];
  private hooks: RequestHooks | undefined;
  private express: express.Express | undefined;
  private readonly routes = new ExpressRoutes();
  private readonly routesFound = new WeakMap<object, string | undefined>();
  /** Requests whose body the body middleware has handled (read, refused or left). */
  private readonly bodiesSeen = new WeakSet<object>();

  constructor(private readonly config: AppConfig) {}

  createAdapter(): ExpressAdapter {
    const app = express();
    // before the adapter: Express builds its router from these settings on first use
    app.set('case sensitive routing', true);
    app.set('strict routing', false);
    app.set('trust proxy', proxyTrust(this.config.TRUST_PROXY));
    app.disable('x-powered-by');
    // Express's automatic weak ETags would answer 304 on any GET; only versions carry an ETag,
    // the content hash, which their route sets itself
    app.set('etag', false);
    this.express = app;
    return new JsonTextExpressAdapter(app);
  }

  configure(app: INestApplication, hooks: RequestHooks): void {
    this.hooks = hooks;
    const server = app.getHttpServer() as Server;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.on('clientError', answerClientError);
    continueOnlyAdmittedBodies(server);
    answerBeforeRouting(server);
    (app as NestExpressApplication).use(
      (req: Request & { id?: string }, res: Response, next: (err?: unknown) => void) => {
        // after a misframed request on its connection: never handled, the connection is closing
        if (onCondemned(req)) return;
        const started = process.hrtime.bigint();
        settleClientAddress(req);
        const id = requestIdFor(req);
        req.id = id;
        res.setHeader('X-Request-Id', id);
        res.once('finish', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const httpRequest = req as unknown as HttpRequest;
          hooks.onResponse(httpRequest, this.routeOf(httpRequest), res.statusCode, seconds);
        });
        next(misframed(req, res));
      },
    );
  }

  afterRoutes(): void {
    this.express!.use((req: Request, res: Response, next: (err: unknown) => void) => {
      // a body no middleware looked at (a path outside the prefix) is never read, as on Fastify,
      // whose parser finds no route for it: the connection is not kept
      if (!this.bodiesSeen.has(req) && carriesBody(req)) closeAfterResponse(res);
      // what Nest's own not-found handler throws, which Fastify's runs for these paths
      next(new NotFoundException());
    });
  }

  /** After the request logger: the body (readRequestBody), then the hook the handler runs inside. */
  middleware(): PlatformMiddleware[] {
    return [
      (req, res, next) => {
        this.bodiesSeen.add(req);
        readRequestBody({
          request: req as unknown as HttpRequest,
          raw: req,
          route: this.routeOf(req as unknown as HttpRequest),
          admits: this.hooks!.admitsBody,
          ...bodyTermsOf(this.config, res),
        })
          .then((body) => {
            (req as { body?: unknown }).body = body;
            this.hooks!.beforeHandler(res, () => next());
          }, next)
          // whatever the rest of the request throws synchronously goes to the error handlers
          .catch((err: unknown) => next(err));
      },
    ];
  }

  routeOf(req: HttpRequest): string | undefined {
    const { route, baseUrl } = req as unknown as { route?: { path?: unknown }; baseUrl?: string };
    // a catch-all route is the middleware Nest applies to every path, or the 404 route
    return typeof route?.path === 'string' &&
      !route.path.includes('*') &&
      this.routes.isRoute(this.routerStack(), route)
      ? `${baseUrl ?? ''}${route.path}`
      : this.routeFor(req);
  }

  methodsOnPath(req: HttpRequest): string[] {
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    return this.routes.methodsOn(this.routerStack(), routedPath(url));
  }

  /**
   * The route a request refused before routing (its body could not be read) would have reached:
   * Fastify routes before it reads a body, and the token endpoint's errors and the metrics labels
   * depend on the route, so Express looks it up the same way.
   */
  private routeFor(req: HttpRequest): string | undefined {
    // asked up to three times a request (body, rate limit, metrics), the same answer each time
    if (this.routesFound.has(req)) return this.routesFound.get(req);
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    const path = routedPath(url);
    const route = this.routes.lookup(this.routerStack(), req.method, path);
    this.routesFound.set(req, route);
    return route;
  }

  private routerStack(): RouteLayer[] {
    const router = this.express?.router as unknown as { stack?: RouteLayer[] } | undefined;
    return router?.stack ?? [];
  }

  refusalOf(err: unknown): FrameworkRefusal | undefined {
    // a path that is not valid percent-encoding; Nest hands it on as a 400 HttpException
    const cause = err instanceof HttpException ? err.cause : err;
    if (cause instanceof URIError && (cause as { status?: unknown }).status === 400) {
      return { kind: 'malformed_request', detail: 'the request URL could not be parsed' };
    }
    return undefined;
  }

  sent(res: unknown): boolean {
    return (res as Response).headersSent;
  }

  send(res: unknown, status: number, headers: Record<string, string>, body: string | object): void {
    const response = (res as Response).status(status).set(headers);
    if (typeof body === 'string') response.send(body);
    else response.json(body);
  }
}
