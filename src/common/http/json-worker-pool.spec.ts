import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { JsonWorker } from './json-worker-pool.js';

/** A stand-in worker script: a job with limit 0 throws (the worker dies), any other is answered. */
function scriptFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'json-worker-')), 'worker.mjs');
  writeFileSync(
    file,
    `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (job) => {
  if (job.limit === 0) throw new Error('boom');
  parentPort.postMessage({ id: job.id, failed: 'answered' });
});
`,
  );
  return file;
}

const job = (limit: number) => ({
  headers: {},
  bytes: new Uint8Array(8),
  limit,
  limits: { maxNodes: 10, maxDepth: 4 },
});

describe('JsonWorker', () => {
  it('fails only the jobs of a worker that dies; the next job gets a new worker', async () => {
    const pool = new JsonWorker(scriptFile());
    // the next job starts at once when the first fails, before the dead worker's 'exit'
    const next = await pool.run(job(0)).then(
      () => undefined,
      () => pool.run(job(1)),
    );
    expect(next).toEqual({ id: 2, failed: 'answered' });
    expect(await pool.run(job(1))).toEqual({ id: 3, failed: 'answered' });
  });

  it('ends its worker once idle and starts a new one for the next job', async () => {
    const pool = new JsonWorker(scriptFile(), 50);
    expect(await pool.run(job(1))).toEqual({ id: 1, failed: 'answered' });
    expect(pool.alive).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pool.alive).toBe(false);
    expect(await pool.run(job(1))).toEqual({ id: 2, failed: 'answered' });
    expect(pool.starts).toBe(2);
  });

  it('keeps its worker while jobs follow each other within the idle time', async () => {
    const pool = new JsonWorker(scriptFile(), 5_000);
    for (let i = 1; i <= 3; i += 1) {
      expect(await pool.run(job(1))).toEqual({ id: i, failed: 'answered' });
    }
    expect(pool.starts).toBe(1);
    expect(pool.alive).toBe(true);
  });
});
