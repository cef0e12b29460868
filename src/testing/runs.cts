import { existsSync, readFileSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where run directories live; a run whose owner is gone is removed by the next start. */
export const RUNS_DIR = join(tmpdir(), 'grc-integration-api-testing');

/** A directory without a readable owner file is someone's start in progress for this long. */
const CREATION_GRACE_MS = 60_000;

interface RunOwner {
  ownerPid: number;
  /** The owner's start time (/proc/<pid>/stat): a reused pid is another process. */
  ownerStart?: string;
  servicePid?: number;
}

function alive(pid: number | undefined): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
function startTimeOf(pid: number): string | undefined {
  const stat = readProc(pid, 'stat');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] || undefined;
}

function ownerAlive(owner: RunOwner): boolean {
  if (!alive(owner.ownerPid)) return false;
  return owner.ownerStart === undefined || startTimeOf(owner.ownerPid) === owner.ownerStart;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && alive(pid); waited += 100) await sleep(100);
  return !alive(pid);
}

/** Signals `pid` if it is still the process we mean, then kills it if it does not stop. */
async function stopProcess(pid: number, looksLike: RegExp, signal: NodeJS.Signals): Promise<void> {
  if (!alive(pid) || !looksLike.test(readProc(pid, 'cmdline'))) return;
  try {
    process.kill(pid, signal);
    if (!(await waitGone(pid, 10_000))) process.kill(pid, 'SIGKILL');
  } catch {
    // gone in between
  }
}

/** Written whole or not at all (a kill mid-write must not leave an unreadable owner file). */
export async function writeOwner(runDir: string, owner: RunOwner): Promise<void> {
  const temporary = join(runDir, 'owner.json.tmp');
  await writeFile(temporary, JSON.stringify(owner));
  await rename(temporary, join(runDir, 'owner.json'));
}

/** A new run directory of this process, its owner file written before anything else is in it. */
export async function newRun(): Promise<{ runDir: string; owner: RunOwner }> {
  await mkdir(RUNS_DIR, { recursive: true, mode: 0o755 });
  const runDir = await mkdtemp(join(RUNS_DIR, 'run-'));
  // the embedded PostgreSQL runs as the `postgres` user when this runs as root: it must reach DATA_DIR
  await chmod(runDir, 0o755);
  const start = startTimeOf(process.pid);
  const owner: RunOwner = { ownerPid: process.pid, ...(start ? { ownerStart: start } : {}) };
  await writeOwner(runDir, owner);
  return { runDir, owner };
}

async function readOwner(dir: string): Promise<RunOwner | 'unreadable'> {
  try {
    const owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as RunOwner;
    return Number.isInteger(owner.ownerPid) ? owner : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Removes a run directory, first stopping the embedded PostgreSQL it may still hold (a service
 * killed before it could stop its own): removed under a running server, it would run on unseen.
 */
export async function removeRunDir(dir: string): Promise<void> {
  const pidFile = join(dir, 'data', 'pg', 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    await stopProcess(pid, /postgres/, 'SIGINT');
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * Removes the run directories whose owner is gone (a SIGKILLed jest, a start that failed half
 * way), stopping what they left running: the service if it outlived its parent, then the
 * embedded PostgreSQL (a fast shutdown). An owner is gone when its pid is dead or now belongs to
 * another process; a directory without a readable owner file is gone once it is a minute old.
 * One directory that cannot be removed does not stop the others.
 */
export async function cleanStaleRuns(): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(RUNS_DIR).catch(() => [] as string[]);
  for (const entry of entries) {
    const dir = join(RUNS_DIR, entry);
    try {
      const owner = await readOwner(dir);
      if (owner === 'unreadable') {
        const { mtimeMs } = await stat(dir);
        if (Date.now() - mtimeMs < CREATION_GRACE_MS) continue;
      } else {
        if (ownerAlive(owner)) continue;
        if (owner.servicePid) await stopProcess(owner.servicePid, /main\.js/, 'SIGTERM');
      }
      await removeRunDir(dir);
      removed.push(dir);
    } catch {
      // removed by another cleaner meanwhile, or not ours to remove: the next start tries again
    }
  }
  return removed;
}
