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

  it('sends while earlier answers are still held (open loop), at most at its rate, and waits for them all', async () => {
    const seen: string[] = [];
    let release = (): void => undefined;
    const released = new Promise<void>((ok) => (release = ok));
    let tenArrived = (): void => undefined;
    const ten = new Promise<void>((ok) => (tenArrived = ok));
    // no answer leaves before the tenth request arrives: a loop that waited for its answers would
    // never send a second one (the bound below ends the reading all the same)
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      if (seen.length === 10) tenArrived();
      void released.then(() => res.writeHead(200).end('{}'));
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let bound: NodeJS.Timeout | undefined;
    const late = new Promise<void>((ok) => (bound = setTimeout(ok, 20_000)));
    const until = Promise.race([ten, late]).then(() => {
      clearTimeout(bound);
      release();
    });
    const r = await readAtRate(`${url}/doc`, 'tok', 40, until);
    expect(seen.length).toBeGreaterThanOrEqual(10);
    expect(r.total).toBe(seen.length);
    expect(seen.every((h) => h === 'Bearer tok')).toBe(true);
    // the i-th request leaves no earlier than i / 40 s after the first
    expect(r.total).toBeLessThanOrEqual(Math.floor((r.elapsedSec ?? 0) * 40) + 1);
    // the first answer was held until the tenth request, sent ≥ 9 × 25 ms after it
    expect(r.p99).toBeGreaterThanOrEqual(220);
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
