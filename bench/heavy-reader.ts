import pg from 'pg';
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
 * Waits until the count stops growing (two readings 500 ms apart agree, at most `maxMs`): the
 * stagings the service was still working on when the load generator stopped (their clients gone)
 * are done, so a window's CPU and its count of stagings cover the same work.
 */
export async function settledCandidates(
  dbUrl: string,
  documentId: number,
  maxMs = 15_000,
): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = await storedCandidates(dbUrl, documentId);
  for (;;) {
    await sleep(500);
    const now = await storedCandidates(dbUrl, documentId);
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}
