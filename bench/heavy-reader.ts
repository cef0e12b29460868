import pg from 'pg';
import { processTicks } from './cpu-meter.js';
import { type LoadResult, sleep } from './harness.js';

/**
 * Group 10's probes (issue 39 item 4): the other tenant's reads at a fixed rate, and the number of
 * candidates the service has stored on the heavy document.
 */

/**
 * GETs `url` every 1000 / `rate` ms until `until` settles, each sent on time whether or not the
 * previous ones have been answered (open loop): a slow answer delays no later request, so the p99
 * is the latency a steady client sees, not one thinned by waiting (coordinated omission).
 */
export async function readAtRate(
  url: string,
  token: string,
  rate: number,
  until: Promise<unknown>,
): Promise<LoadResult> {
  const samples: number[] = [];
  const statuses = new Map<number, number>();
  let failures = 0;
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const inFlight = new Set<Promise<void>>();
  const headers = { authorization: `Bearer ${token}` };
  const started = performance.now();
  for (let i = 0; !done; i++) {
    const sent = performance.now();
    const request = (async () => {
      try {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        samples.push(performance.now() - sent);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      } catch {
        failures++;
      }
    })();
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
    const next = started + ((i + 1) * 1000) / rate;
    await sleep(Math.max(0, next - performance.now()));
  }
  await Promise.all(inFlight);
  const elapsedSec = Math.max((performance.now() - started) / 1000, 0.001);
  const sorted = samples.sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const ok = statuses.get(200) ?? 0;
  return {
    requestsPerSec: samples.length / elapsedSec,
    elapsedSec,
    p50: at(0.5),
    p99: at(0.99),
    errors: samples.length - ok + failures,
    non2xx: samples.length - ok,
    total: samples.length,
    statuses: [...statuses].map(([code, n]) => `${code}×${n}`).join(' '),
  };
}

/** Candidates stored on `documentId` (any status), read as the database's owner. */
export async function storedCandidates(dbUrl: string, documentId: number): Promise<number> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM external_revisions WHERE document_id = $1',
      [documentId],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Waits until the service is done with the heavy document (at most `maxMs`): over two 500 ms spans
 * in a row the candidate count did not grow and the service process used under 10 % of a CPU. Then
 * the stagings it was still working on when the load generator stopped (their clients gone) are
 * stored, so a window's CPU and its count of stagings cover the same work. A big staging holds the
 * process busy between its commits, so the count alone could settle too early.
 */
export async function settledCandidates(
  dbUrl: string,
  documentId: number,
  pid: number,
  maxMs = 20_000,
): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = await storedCandidates(dbUrl, documentId);
  let ticks = processTicks(String(pid));
  let quiet = 0;
  for (;;) {
    await sleep(500);
    const now = await storedCandidates(dbUrl, documentId);
    const nowTicks = processTicks(String(pid));
    // 5 ticks of 10 ms in 500 ms: 10 % of a CPU, above the idle service's timers
    quiet = now === last && nowTicks - ticks < 5 ? quiet + 1 : 0;
    if (quiet >= 2 || Date.now() > deadline) return now;
    last = now;
    ticks = nowTicks;
  }
}
