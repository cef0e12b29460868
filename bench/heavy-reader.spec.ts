import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { sleep } from './harness.js';
import { readAtRate } from './heavy-reader.js';

describe("the other tenant's reads at a fixed rate", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((ok) => server?.close(ok));
    server = undefined;
  });

  /** Answers every request after `delayMs`, 404 for /missing; counts requests and tokens. */
  async function serve(delayMs: number, seen: string[]): Promise<string> {
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      setTimeout(() => res.writeHead(req.url === '/missing' ? 404 : 200).end('{}'), delayMs);
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('sends on time even while earlier answers are slow (open loop), and waits for them all', async () => {
    const seen: string[] = [];
    const url = await serve(300, seen);
    // 40/s for 500 ms: ~20 requests, though each answer takes 300 ms
    const r = await readAtRate(`${url}/doc`, 'tok', 40, sleep(500));
    expect(r.total).toBeGreaterThanOrEqual(15);
    expect(r.total).toBe(seen.length);
    expect(seen.every((h) => h === 'Bearer tok')).toBe(true);
    expect(r.p50).toBeGreaterThanOrEqual(290);
    expect(r.p99).toBeGreaterThanOrEqual(r.p50);
    expect(r.errors).toBe(0);
  });

  it('counts any answer but 200 as an error', async () => {
    const url = await serve(0, []);
    const r = await readAtRate(`${url}/missing`, 'tok', 50, sleep(200));
    expect(r.total).toBeGreaterThan(0);
    expect(r.errors).toBe(r.total);
    expect(r.statuses).toBe(`404×${r.total}`);
  });
});
