import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// packs the package, installs the tarball outside the repo and runs the example suite against it
jest.setTimeout(300_000);

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'examples/platform-jest-suite');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && alive(pid); waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

function run(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('exit', (code) => ok({ code, output }));
  });
}

/** A consumer process that starts the service with the kit and prints its pids, then waits. */
const HOLDER = `
const { startIntegrationApi } = require('grc-integration-api/testing');
startIntegrationApi().then((api) => {
  process.stdout.write(JSON.stringify({ servicePid: api.pid, runDir: api.runDir }) + '\\n');
  setInterval(() => {}, 1000);
});`;

/** A consumer process's `cleanStaleRuns()`, printing the directories it removed. */
const CLEAN = `
require('grc-integration-api/testing')
  .cleanStaleRuns()
  .then((removed) => process.stdout.write(JSON.stringify(removed)));`;

function startHolder(
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ holder: ChildProcess; servicePid: number; runDir: string }> {
  return new Promise((ok, fail) => {
    const holder = spawn(process.execPath, ['-e', HOLDER], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    holder.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n'))
        ok({ holder, ...(JSON.parse(out) as { servicePid: number; runDir: string }) });
    });
    holder.once('exit', (code) =>
      fail(new Error(`holder exited (${code}) before the service was ready`)),
    );
  });
}

function postmasterPid(runDir: string): number {
  return Number(readFileSync(join(runDir, 'data/pg/postmaster.pid'), 'utf8').split('\n')[0]);
}

describe('the package from its npm pack tarball, in a CommonJS jest suite outside the repo', () => {
  let work: string;
  let consumer: string;
  let tarball: string;
  let database: TestDatabase | undefined;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'grc-package-'));
    // `npm test` has just built dist/; packing again would only rebuild it
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ filename: string }>;
    tarball = join(work, packed[0]!.filename);
    consumer = join(work, 'consumer');
    const installed = join(consumer, 'node_modules/grc-integration-api');
    mkdirSync(installed, { recursive: true });
    // what `npm install <tarball>` unpacks; its dependencies come from this checkout's install
    // (offline: the registry is not asked)
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(installed, 'node_modules'));
    for (const f of [
      'package.json',
      'integration.test.js',
      'consumer.mjs',
      'global-setup.js',
      'global-teardown.js',
    ]) {
      cpSync(join(EXAMPLE, f), join(consumer, f));
    }
  });

  afterAll(async () => {
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('ships the built code, the bin and the typed kit, and nothing of tests or benchmarks', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of [
      'package/dist/src/bin.js',
      'package/dist/src/main.js',
      'package/dist/src/testing/index.cjs',
      'package/dist/src/testing/index.d.cts',
      'package/dist/src/testing/index.js',
      'package/dist/src/testing/index.d.ts',
      'package/examples/api-types.d.cts',
      'package/examples/platform-api-types.d.ts',
      'package/examples/platform-api-types.d.cts',
      'package/openapi.platform.json',
      // the guides the package README links to, the testing kit's among them
      'package/README.md',
      'package/docs/platform/testing-kit.md',
      'package/docs/integrators/verifying-webhooks.md',
    ]) {
      expect(files).toContain(f);
    }
    // no source maps: they would point at sources the package does not ship
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // and no shipped file points at a map (or any file) the tarball does not have
    const installed = join(consumer, 'node_modules/grc-integration-api');
    const dangling = files
      .filter((f) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(f))
      .flatMap((f) => {
        const text = readFileSync(join(installed, f.slice('package/'.length)), 'utf8');
        return [...text.matchAll(/^\/\/# sourceMappingURL=(\S+)$/gm)]
          .map((m) => join(dirname(f), m[1]!))
          .filter((target) => !files.includes(target))
          .map((target) => `${f} -> ${target}`);
      });
    expect(dangling).toEqual([]);
    expect(files.some((f) => f.startsWith('package/dist/migrations/'))).toBe(true);
    expect(files.filter((f) => /^package\/(dist\/)?(test|bench)\//.test(f))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules/grc-integration-api/package.json'), 'utf8'),
    ) as {
      private?: boolean;
      bin: Record<string, string>;
      engines: { node: string };
    };
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin['grc-integration-api']).toBe('dist/src/bin.js');
    expect(manifest.engines.node).toBe('>=24');
  });

  it('npm pack prints the files it puts in the tarball', () => {
    // prepack builds only when a source is newer than dist/ (`npm test` has just built it)
    const listed = spawnSync('npm', ['pack', '--dry-run'], { cwd: ROOT, encoding: 'utf8' });
    expect(listed.status).toBe(0);
    expect(listed.stderr).toMatch(/Tarball Contents/);
    expect(listed.stderr).toMatch(/dist\/src\/testing\/index\.cjs/);
    expect(listed.stderr).toMatch(/examples\/platform-api-types\.d\.cts/);
  });

  it('loads from an ES module consumer', async () => {
    const { code, output } = await run(['consumer.mjs'], consumer);
    expect(code).toBe(0);
    expect(JSON.parse(output)).toEqual({ esm: 'function', root: 'function', scopes: 6 });
  });

  it('runs the example suite: platform API accept, signed webhook, lock conflict, 403', async () => {
    const env: Record<string, string> = { TIMINGS_FILE: join(work, 'timings.json') };
    if (process.env.DATABASE_URL) {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
    }
    const jestBin = join(ROOT, 'node_modules/jest/bin/jest.js');
    const { code, output } = await run([jestBin, '--ci', '--rootDir', consumer], consumer, env);
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/Tests:\s+3 passed, 3 total/);
    process.stdout.write(
      `example suite (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}): ${readFileSync(env.TIMINGS_FILE!, 'utf8')}\n`,
    );
  });

  it('the service and its embedded PostgreSQL die with a SIGKILLed parent', async () => {
    const { holder, servicePid, runDir } = await startHolder(consumer);
    const pg = postmasterPid(runDir);
    expect(alive(servicePid) && alive(pg)).toBe(true);
    holder.kill('SIGKILL');
    expect(await waitGone(servicePid, 30_000)).toBe(true);
    expect(await waitGone(pg, 30_000)).toBe(true);
  });

  it('a PostgreSQL left by a run killed outright is stopped and its directory removed by the next start', async () => {
    // run directories of their own (the kit keeps them under the system temp directory): every
    // other suite's start cleans stale runs too, and one could stop this one's first
    const runsTmp = mkdtempSync(join(tmpdir(), 'grc-package-runs-'));
    chmodSync(runsTmp, 0o755);
    try {
      const { holder, servicePid, runDir } = await startHolder(consumer, { TMPDIR: runsTmp });
      const pg = postmasterPid(runDir);
      // parent and service killed at once: nothing shut the database down
      holder.kill('SIGKILL');
      process.kill(servicePid, 'SIGKILL');
      await waitGone(servicePid, 10_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(alive(pg)).toBe(true);

      // what startIntegrationApi() does first, in a consumer process with the holder's temp dir
      const cleaned = await run(['-e', CLEAN], consumer, { TMPDIR: runsTmp });
      expect(cleaned.code).toBe(0);
      const removed = JSON.parse(cleaned.output) as string[];
      expect(removed).toContain(runDir);
      expect(await waitGone(pg, 15_000)).toBe(true);
      expect(existsSync(runDir)).toBe(false);
    } finally {
      rmSync(runsTmp, { recursive: true, force: true });
    }
  });
});
