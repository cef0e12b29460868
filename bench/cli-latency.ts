/**
 * `npm run bench:cli`: wall time of one administration CLI call, answered by the running service
 * (admin socket) and, for comparison, booting the application in its own process (`ADMIN_SOCKET=off`,
 * needs DATABASE_URL); and the testing kit's spawn -> ready and `createTenant`. Medians of
 * BENCH_CLI_CALLS calls (default 15). Results: bench/README.md, "Administration CLI".
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type * as Kit from '../src/testing/index.cjs';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = resolve(ROOT, 'dist/src/cli.js');
const kit = createRequire(import.meta.url)(
  resolve(ROOT, 'dist/src/testing/index.cjs'),
) as typeof Kit;
const CALLS = Number(process.env.BENCH_CLI_CALLS ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeCli(env: Record<string, string>, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) =>
      code === 0 ? ok(performance.now() - started) : fail(new Error(`cli exited ${code}`)),
    );
  });
}

async function series(label: string, env: Record<string, string>, calls: number): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    times.push(
      await timeCli(env, [
        'tenant',
        'create',
        '--name',
        `bench ${i}`,
        '--plan',
        'starter',
        '--json',
      ]),
    );
  }
  process.stdout.write(
    `${label}: median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)} (${calls} calls)\n`,
  );
}

const databaseUrl = process.env.DATABASE_URL;
let started = performance.now();
const api = await kit.startIntegrationApi(databaseUrl ? { databaseUrl } : {});
process.stdout.write(
  `spawn -> ready (${databaseUrl ? 'external' : 'embedded, cold: initdb'}): ${(performance.now() - started).toFixed(0)} ms\n`,
);
try {
  started = performance.now();
  await api.createTenant({ projects: [{ name: 'p', documents: [{ title: 'd' }] }] });
  process.stdout.write(
    `first createTenant (fixture apply + token): ${(performance.now() - started).toFixed(0)} ms\n`,
  );
  const fixture: number[] = [];
  for (let i = 0; i < 5; i++) {
    started = performance.now();
    await api.createTenant({ projects: [{ name: 'p', documents: [{ title: 'd' }] }] });
    fixture.push(performance.now() - started);
  }
  process.stdout.write(`createTenant median of 5: ${median(fixture).toFixed(0)} ms\n`);
  await series(
    'CLI call answered by the service',
    { ADMIN_SOCKET: resolve(api.runDir, 'admin.sock') },
    CALLS,
  );
  if (databaseUrl) {
    await series(
      'CLI call booting the application itself (ADMIN_SOCKET=off)',
      {
        ADMIN_SOCKET: 'off',
        DATABASE_URL: databaseUrl,
        WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      },
      Math.min(CALLS, 5),
    );
  }
} finally {
  await api.stop();
}
