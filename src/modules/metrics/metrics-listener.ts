import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { problem, PROBLEM_CONTENT_TYPE } from '../../common/http/problem.js';
import { requestIdFor } from '../../common/http/request-id.js';
import type { ErrorCode } from '../../common/http/error-codes.js';
import { METRICS_CONTENT_TYPE } from './metrics.service.js';

/** A listener serving `GET /metrics` and nothing else. */
export interface MetricsListener {
  /** The port it listens on (the one given, or the one picked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

function answerProblem(
  res: ServerResponse,
  id: string,
  code: ErrorCode,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const answer = problem(code, detail, id);
  const body = JSON.stringify(answer);
  res.writeHead(answer.status, {
    ...headers,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/**
 * `GET /metrics` (any query; HEAD too) from `scrape`; any other path a 404 problem, another
 * method on `/metrics` a 405 with `Allow`, each with `X-Request-Id`. No credential: who can reach
 * `host` can read the metrics, which is why the hosts default to loopback.
 */
function handle(scrape: () => Promise<string>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const id = requestIdFor(req);
    res.setHeader('X-Request-Id', id);
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' && path !== '/metrics/') {
      return answerProblem(res, id, 'not_found', 'route not found');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return answerProblem(res, id, 'method_not_allowed', `${req.method} is not allowed here`, {
        Allow: 'GET, HEAD',
      });
    }
    scrape().then(
      (text) => {
        res.writeHead(200, {
          'Content-Type': METRICS_CONTENT_TYPE,
          'Content-Length': String(Buffer.byteLength(text)),
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => answerProblem(res, id, 'internal_error', 'the metrics could not be read'),
    );
  };
}

const SIDE_MAX_CONNECTIONS = 64;

/** Listens on `host`:`port` (0: a free port) and resolves once it accepts connections. */
export async function startMetricsListener(
  host: string,
  port: number,
  scrape: () => Promise<string>,
): Promise<MetricsListener> {
  const server: Server = createServer(handle(scrape));
  // a scraper's connection is short; nothing here waits on a slow client for long
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // a scraper needs a few connections; past these a local client cannot use up the descriptors
  server.maxConnections = SIDE_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // an accept that fails later (no descriptor left) must not be an uncaught error
      server.on('error', () => undefined);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
