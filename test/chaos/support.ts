import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { startScriptEnv } from '../../bench/service-flags.js';

/** What a receiver path does: answer a status after a delay (ms, or a random [min, max]), or hang. */
export type Behaviour = { status: number; delayMs?: number | [number, number] } | 'hang';

/**
 * A webhook receiver on 127.0.0.1 that counts deliveries per path and `webhook-id` (what a
 * receiver dedupes on), with a behaviour per path that a test can change at any time.
 */
export interface ChaosReceiver {
  url(path: string): string;
  /** `webhook-id` → number of requests received on `path`. */
  ids(path: string): Map<string, number>;
  /** `webhook-id` → number of requests on `path` that were answered (or are being) with a 2xx. */
  delivered(path: string): Map<string, number>;
  /** Requests received on `path`. */
  count(path: string): number;
  /** Requests being answered right now (received, no response yet). */
  inFlight(): number;
  set(path: string, behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startChaosReceiver(): Promise<ChaosReceiver> {
  const seen = new Map<string, Map<string, number>>();
  const ok = new Map<string, Map<string, number>>();
  const bump = (maps: Map<string, Map<string, number>>, path: string, id: string) => {
    const ids = maps.get(path) ?? new Map<string, number>();
    maps.set(path, ids);
    ids.set(id, (ids.get(id) ?? 0) + 1);
  };
  const behaviours = new Map<string, Behaviour>();
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const id = String(req.headers['webhook-id'] ?? '');
      bump(seen, path, id);
      open.add(res);
      res.on('close', () => open.delete(res));
      const behaviour = behaviours.get(path) ?? { status: 200 };
      if (behaviour === 'hang') return;
      if (behaviour.status >= 200 && behaviour.status < 300) bump(ok, path, id);
      const d = behaviour.delayMs ?? 0;
      const delay = Array.isArray(d) ? d[0] + Math.random() * (d[1] - d[0]) : d;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(behaviour.status, { 'content-type': 'text/plain' });
        res.end('ok');
      }, delay);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    ids: (path) => seen.get(path) ?? new Map(),
    delivered: (path) => ok.get(path) ?? new Map(),
    count: (path) => [...(seen.get(path)?.values() ?? [])].reduce((a, b) => a + b, 0),
    inFlight: () => open.size,
    set: (path, behaviour) => behaviours.set(path, behaviour),
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

export interface Figures {
  faults: number;
  requests: number;
  /** `n/a` where a scenario makes no writes or sends no webhooks. */
  acknowledgedWritesLost: number | 'n/a';
  deliveriesLost: number | 'n/a';
  duplicates: number | 'n/a';
  [extra: string]: number | string;
}

/** One greppable line per scenario: `CHAOS <scenario> {...}`. */
export function printFigures(scenario: string, figures: Figures): void {
  process.stdout.write(`CHAOS ${scenario} ${JSON.stringify(figures)}\n`);
}

/** Duplicate receipts: every receipt of an id beyond the first. */
export function duplicatesIn(ids: Map<string, number>): number {
  let n = 0;
  for (const c of ids.values()) n += c - 1;
  return n;
}

export const newSecretKey = (): string => randomBytes(32).toString('base64');

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Env of a spawned service: `npm start`'s own (glibc's malloc settings), workers on, loopback
 * receivers allowed, no rate limits, quiet logs.
 */
export function serviceEnv(
  databaseUrl: string | undefined,
  secretKey: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...startScriptEnv(resolve(import.meta.dirname, '../..')),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    WEBHOOK_SECRET_KEY: secretKey,
    WORKERS_ENABLED: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
    RATE_LIMIT_API_PER_MINUTE: '0',
    RATE_LIMIT_TOKEN_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}
