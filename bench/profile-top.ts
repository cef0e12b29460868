import { readdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * Prints the top frames by self time of the newest `.cpuprofile` in a directory (default
 * bench/.tmp/profiles, where `BENCH_CPU_PROF=1 npm run bench` leaves the service's profile).
 * Usage: node dist/bench/profile-top.js [dir-or-file] [count]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

async function newestProfile(target: string): Promise<string> {
  if (target.endsWith('.cpuprofile')) return target;
  const files = (await readdir(target)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const last = files.at(-1);
  if (!last) throw new Error(`no .cpuprofile in ${target}`);
  return resolve(target, last);
}

const root = resolve(import.meta.dirname, '..', '..');
const file = await newestProfile(process.argv[2] ?? resolve(root, 'bench/.tmp/profiles'));
const count = Number(process.argv[3] ?? 25);
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const frames = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  total += us;
  const where = f.url ? `${f.url.replace(`file://${root}/`, '')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  frames.set(key, (frames.get(key) ?? 0) + us);
}

process.stdout.write(`${file}\n  self ms    %  frame\n`);
for (const [key, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, count)) {
  const pct = ((100 * us) / total).toFixed(1).padStart(5);
  process.stdout.write(`${(us / 1000).toFixed(0).padStart(9)} ${pct}  ${key}\n`);
}
