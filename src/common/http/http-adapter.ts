import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { answerClientError } from './client-error.js';
import { problem, PROBLEM_CONTENT_TYPE } from './problem.js';
import { requestIdFor } from './request-id.js';

/**
 * The HTTP server under Nest: Fastify. It replaced Express, whose per-request machinery (router,
 * response helpers, body-parser chain, and the garbage they leave) was most of the service's CPU
 * per request: scenario 1 of `npm run bench` used 1.40–1.46 ms of service CPU per request on
 * Express and 0.57–0.68 ms on Fastify, same SQL (bench/README.md, "HTTP adapter").
 *
 * Options keep what callers relied on with Express: a trailing slash is ignored, ids longer than
 * Fastify's default 100 characters still reach the validation pipe (a 400, not a router 404),
 * `TRUST_PROXY` decides whether `X-Forwarded-For` is the client address, requests time out as
 * Node's do, and what the router or the HTTP parser refuses is a problem body like any error.
 */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.BODY_LIMIT,
    // Node's own default, which Fastify turns off: a client has 5 minutes to send its request
    requestTimeout: 300_000,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    clientErrorHandler: answerClientError,
    genReqId: requestIdFor,
    // the header is read by requestIdFor, which refuses values unfit for logs and headers
    requestIdHeader: false,
    // what the router refuses before any hook runs (a path that is not valid percent-encoding)
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const body = problem(
        400,
        'malformed_request',
        'Malformed request',
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
