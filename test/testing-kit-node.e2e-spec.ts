import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';

// The kit's choice of Node, its refusals, and which run directories it cleans (dist/, built by
// `npm test`).
const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const kit = require('../dist/src/testing/index.cjs') as {
  startIntegrationApi(o: { node?: string; readyTimeoutMs?: number }): Promise<unknown>;
  cleanStaleRuns(): Promise<string[]>;
};
const RUNS_DIR = join(tmpdir(), 'grc-integration-api-testing');
const run = promisify(execFile);

/** A Node older than 24 on this machine (the system's), if there is one. */
async function oldNode(): Promise<string | undefined> {
  for (const candidate of ['/usr/bin/node', '/bin/node', '/usr/local/bin/node']) {
    const version = await run(candidate, ['-p', 'process.versions.node']).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    if (version && Number(version.split('.')[0]) < 24) return candidate;
  }
  return undefined;
}

const ownRuns = (): string[] =>
  readdirSync(RUNS_DIR, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [e.name] : []));

describe('the testing kit picks a Node that can run the service', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'grc-kit-node-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each([
    ['a missing file', '/nonexistent/node', /does not exist/],
    ['a file that is not executable', join(ROOT, 'package.json'), /not executable/],
    ['a directory', ROOT, /not a file/],
  ])('refuses %s as `node` at once, leaving no run directory', async (_what, node, message) => {
    mkdirSync(RUNS_DIR, { recursive: true });
    const before = ownRuns();
    const started = Date.now();
    await expect(kit.startIntegrationApi({ node })).rejects.toThrow(message);
    // at once: no waiting for a ready message that cannot come (it hung 60 s)
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ownRuns().filter((r) => !before.includes(r))).toEqual([]);
  });

  it('refuses a `node` older than 24, naming its version', async () => {
    const node = await oldNode();
    if (!node) return; // no old Node on this machine to try
    await expect(kit.startIntegrationApi({ node })).rejects.toThrow(
      /is Node \d+\.\d+\.\d+; the service needs Node >= 24/,
    );
  });

  it('on an old Node, runs the service with the `node` package, or says what to install', async () => {
    const node = await oldNode();
    if (!node) return;
    const script = (packageDir: string): string =>
      `require(${JSON.stringify(join(ROOT, 'dist/src/testing/node-binary.cjs'))})` +
      `.serviceNode(undefined, ${JSON.stringify(packageDir)})` +
      '.then((n) => console.log(JSON.stringify({ node: n })), (e) => console.log(JSON.stringify({ error: e.message })))';
    // from the repo: its devDependency `node` (Node 24) is found
    const found = await run(node, ['-e', script(ROOT)], { cwd: ROOT });
    expect(JSON.parse(found.stdout)).toEqual({
      node: join(realpathSync(join(ROOT, 'node_modules')), 'node/bin/node'),
    });
    // from a folder where no `node` package is installed: a message saying what to install
    const none = await run(node, ['-e', script(scratch)], { cwd: scratch });
    expect(JSON.parse(none.stdout).error).toMatch(
      /needs Node >= 24 .*this is Node \d+.*npm install --save-dev node@24/,
    );
  });

  it('stops the PostgreSQL a start left running before it removes that run', async () => {
    // a stand-in `node`: says it is 24, then as the service starts a "postgres" (its pid in
    // DATA_DIR/pg/postmaster.pid, as the embedded server writes it) and never gets ready
    const fake = join(scratch, 'fake-node');
    const pidFile = join(scratch, 'fake-postmaster.pid');
    writeFileSync(
      fake,
      [
        '#!/bin/bash',
        'if [ "$1" = "-p" ]; then echo 24.21.0; exit 0; fi',
        'mkdir -p "$DATA_DIR/pg"',
        // SIGINT stops it, as it stops a postmaster (a background job would ignore it)
        `perl -e '$SIG{INT}="DEFAULT"; $0="postgres: stand-in"; sleep 300' &`,
        'echo $! > "$DATA_DIR/pg/postmaster.pid"',
        `echo $! > ${pidFile}`,
        'exec sleep 300',
      ].join('\n'),
      { mode: 0o755 },
    );
    await expect(kit.startIntegrationApi({ node: fake, readyTimeoutMs: 3_000 })).rejects.toThrow(
      /not ready within 3000 ms/,
    );
    const postmaster = Number(readFileSync(pidFile, 'utf8'));
    let alive = true;
    try {
      process.kill(postmaster, 0);
    } catch {
      alive = false;
    }
    if (alive) process.kill(postmaster, 'SIGKILL');
    // it was stopped before its run directory went: removed under it, it would run on unseen
    expect(alive).toBe(false);
  });

  it('cleanStaleRuns removes the runs whose owner is gone, including those it used to miss', async () => {
    mkdirSync(RUNS_DIR, { recursive: true });
    const made = (name: string): string => {
      const dir = join(RUNS_DIR, `run-kit-test-${name}-${process.pid}`);
      mkdirSync(join(dir, 'data'), { recursive: true });
      return dir;
    };
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const myStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    // its owner file never written (killed right after creating it), an hour ago
    const noOwner = made('no-owner');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(noOwner, anHourAgo, anHourAgo);
    // an owner file cut short by a kill mid-write
    const cut = made('cut');
    writeFileSync(join(cut, 'owner.json'), '{"ownerPi');
    utimesSync(cut, anHourAgo, anHourAgo);
    // the owner's pid now belongs to another process (this one, started at another time)
    const reused = made('reused');
    writeFileSync(
      join(reused, 'owner.json'),
      JSON.stringify({ ownerPid: process.pid, ownerStart: `${myStart}0` }),
    );
    // kept: a live owner, and a directory being created right now
    const live = made('live');
    writeFileSync(
      join(live, 'owner.json'),
      JSON.stringify({ ownerPid: process.pid, ownerStart: myStart }),
    );
    const fresh = made('fresh');

    const removed = await kit.cleanStaleRuns();
    expect(removed).toEqual(expect.arrayContaining([noOwner, cut, reused]));
    expect(removed).not.toContain(live);
    expect(removed).not.toContain(fresh);
    rmSync(live, { recursive: true });
    rmSync(fresh, { recursive: true });
  });
});
