import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CpuMeter } from './cpu-meter.js';
import type { LoopDelayWindow } from './event-loop.js';
import {
  cli,
  contentOf,
  load,
  type LoadResult,
  type ManagedProcess,
  RssSampler,
  seedTenant,
  sleep,
} from './harness.js';
import { readAtRate, settledCandidates } from './heavy-reader.js';
import {
  DEEP_ENTRIES,
  DEEP_LEVELS,
  heavyBody,
  MIB,
  type Shape,
  WIDE_SECTION_CHARS,
} from './heavy-bodies.js';
import { type Measured, unavailable } from './report.js';

/**
 * Issue 39 item 4, group 10: stagings of 1 and 4 MiB of `content`, wide (few values, long strings)
 * and deep (60 levels, ~90,000 values), at a few connections, while another tenant reads a small
 * document at a steady rate; 10a is that read alone, the baseline of the same turn.
 */
export interface HeavyCase {
  id: string;
  shape: Shape;
  mib: number;
}
export const HEAVY_CASES: readonly HeavyCase[] = [
  { id: '10b', shape: 'wide', mib: 1 },
  { id: '10c', shape: 'wide', mib: 4 },
  { id: '10d', shape: 'deep', mib: 1 },
  { id: '10e', shape: 'deep', mib: 4 },
];
export const IDS_10 = ['10a', ...HEAVY_CASES.map((c) => c.id)];

/** Staging connections of 10b-10e (`BENCH_HEAVY_CONNECTIONS`). */
const CONNECTIONS = Number(process.env.BENCH_HEAVY_CONNECTIONS ?? 4);
/** The other tenant's reads per second, in 10a and beside 10b-10e (`BENCH_HEAVY_READER_RATE`). */
const READER_RATE = Number(process.env.BENCH_HEAVY_READER_RATE ?? 50);

const shapeLabel = (c: HeavyCase): string =>
  c.shape === 'wide'
    ? `${c.mib} MiB wide (${Math.floor((c.mib * MIB) / WIDE_SECTION_CHARS)} sections of 16 KiB text)`
    : `${c.mib} MiB deep (${DEEP_LEVELS} levels × ${DEEP_ENTRIES} entries, ~90,000 values)`;

export const NAMES_10: Record<string, string> = {
  '10a': `another tenant's GET /documents/{id} alone, ${READER_RATE}/s (baseline of 10b-10e)`,
  ...Object.fromEntries(
    HEAVY_CASES.map((c) => [
      c.id,
      `POST /documents/{id}/external-revisions, ${shapeLabel(c)}, ${CONNECTIONS} conns, beside another tenant's reads`,
    ]),
  ),
};

const bodies = new Map<string, string>();
const bodyOf = (c: HeavyCase): string => {
  const key = `${c.shape}:${c.mib}`;
  if (!bodies.has(key)) bodies.set(key, heavyBody(c.shape, c.mib * MIB));
  return bodies.get(key)!;
};

/** The heavy stagings' document (the benchmark tenant's) and the other tenant's read. */
export interface HeavySetup {
  documentId: number;
  readerToken: string;
  readerDocumentId: number;
}

/**
 * Made once per run through the CLI and the API: a document of its own for the big candidates
 * (the benchmark document keeps its rows), and tenant "Reader" with a project, a one-version
 * document and a token (kept in the database, so valid after a restart).
 */
export async function heavySetup(
  baseUrl: string,
  env: Record<string, string>,
  work: string,
  projectId: number,
): Promise<HeavySetup> {
  const contentFile = join(work, 'content-heavy.json');
  await writeFile(contentFile, JSON.stringify(contentOf(1)));
  const document = async (project: number, title: string): Promise<number> =>
    (
      await cli<{ documentId: number }>(env, [
        'document',
        'create',
        '--project',
        String(project),
        '--title',
        title,
        '--content-file',
        contentFile,
      ])
    ).documentId;
  const documentId = await document(projectId, 'Heavy content');
  const reader = await seedTenant(
    baseUrl,
    env,
    { tenant: 'Reader', client: 'reader' },
    'projects:read documents:read',
  );
  const p = await cli<{ projectId: number }>(env, [
    'project',
    'create',
    '--tenant',
    String(reader.tenantId),
    '--name',
    'Reader project',
  ]);
  const readerDocumentId = await document(p.projectId, 'Reader policy');
  return { documentId, readerToken: reader.token, readerDocumentId };
}

export interface HeavyOptions {
  svc: ManagedProcess;
  /** The run's database as its owner: the heavy document's candidates are counted there. */
  dbUrl: string;
  token: string | undefined;
  setup: () => Promise<HeavySetup>;
  durationSec: number;
  warmupSec: number;
  wanted: (id: string) => boolean;
  loop: LoopDelayWindow;
  log: (msg: string) => void;
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);

/**
 * Group 10 on one adapter: 10a (the other tenant's reads alone), then 10b-10e beside them. A heavy
 * row's window runs from its load's start until the service has stored every staging it was still
 * working on when the load stopped; its CPU is divided over the stagings stored in the window (the
 * database's count), the service's after taking off what it used per second in 10a (the reads and
 * its idle timers), PostgreSQL's as measured (all its processes, the reads' small share included).
 */
export async function heavyContentGroup(o: HeavyOptions): Promise<Measured[]> {
  const none = (why: string): Measured[] => IDS_10.map((id) => unavailable(id, NAMES_10[id]!, why));
  if (!o.token) return none('seed incomplete');
  let setup: HeavySetup;
  try {
    setup = await o.setup();
  } catch (err) {
    return none(`setup: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { svc, loop } = o;
  const readUrl = `${svc.baseUrl}/api/v1/documents/${setup.readerDocumentId}`;
  const read = (until: Promise<unknown>): Promise<LoadResult> =>
    readAtRate(readUrl, setup.readerToken, READER_RATE, until);
  const stagingUrl = `${svc.baseUrl}/api/v1/documents/${setup.documentId}/external-revisions`;
  const stage = (body: string, seconds: number): Promise<LoadResult> =>
    load({
      url: stagingUrl,
      method: 'POST',
      headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
      body,
      durationSec: seconds,
      connections: CONNECTIONS,
    });
  const loopNote = (): string => (loop.problem ? `event-loop p99 n/a: ${loop.problem}` : '');

  o.log(`scenario 10a: ${NAMES_10['10a']}`);
  if (o.warmupSec > 0) await read(sleep(o.warmupSec * 1000));
  await loop.begin();
  const rssA = new RssSampler(svc.pid).start();
  const cpuA = new CpuMeter(svc.pid).begin();
  const base = await read(sleep(o.durationSec * 1000));
  cpuA.end();
  /** The service's CPU ms per second with the reader alone. */
  const restMsPerSec = (cpuA.cost(1)?.processMs ?? 0) / (base.elapsedSec ?? o.durationSec);
  const rows: Measured[] = [
    {
      id: '10a',
      name: NAMES_10['10a']!,
      available: true,
      rps: base.requestsPerSec,
      p50: base.p50,
      p99: base.p99,
      errors: base.errors,
      rssMb: rssA.stop(),
      cpu: cpuA.cost(base.total),
      loopP99Ms: await loop.end(),
      note: [
        `tenant "Reader", one request every ${fmt(1000 / READER_RATE)} ms, open loop`,
        `${base.total} requests`,
        base.errors ? `statuses ${base.statuses}` : '',
        loopNote(),
      ]
        .filter(Boolean)
        .join('; '),
    },
  ];

  for (const c of HEAVY_CASES) {
    const name = NAMES_10[c.id]!;
    if (!o.wanted(c.id)) {
      rows.push(unavailable(c.id, name, 'not run (BENCH_ONLY)'));
      continue;
    }
    o.log(`scenario ${c.id}: ${name}`);
    const body = bodyOf(c);
    const probe = await fetch(stagingUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
      body,
    });
    const answer = await probe.text();
    if (probe.status !== 201) {
      rows.push(unavailable(c.id, name, `probe answered ${probe.status} ${answer.slice(0, 200)}`));
      continue;
    }
    if (o.warmupSec > 0) {
      const warm = stage(body, o.warmupSec);
      await Promise.all([warm, read(warm)]);
    }
    // the warm-up's last stagings may still be running: the window starts once they are stored
    const before = await settledCandidates(o.dbUrl, setup.documentId, svc.pid);
    await loop.begin();
    const rss = new RssSampler(svc.pid).start();
    const cpu = new CpuMeter(svc.pid).begin();
    const started = performance.now();
    const staging = stage(body, o.durationSec);
    const [st, rd] = await Promise.all([staging, read(staging)]);
    const stored = (await settledCandidates(o.dbUrl, setup.documentId, svc.pid)) - before;
    cpu.end();
    const seconds = (performance.now() - started) / 1000;
    // after the CPU window: the scrape runs the delivery metrics' statements
    const loopP99Ms = await loop.end();
    const mib = Buffer.byteLength(body) / MIB;
    const all = cpu.cost(1);
    const cost =
      all && stored > 0
        ? {
            processMs: Math.max(0, all.processMs - restMsPerSec * seconds) / stored,
            databaseMs: all.databaseMs / stored,
            stealPct: all.stealPct,
          }
        : undefined;
    const perMib = cost
      ? `CPU per MiB staged: service ${fmt(cost.processMs / mib, 1)} ms, PostgreSQL ${fmt(cost.databaseMs / mib, 1)} ms`
      : '';
    rows.push({
      id: c.id,
      name,
      available: true,
      rps: st.requestsPerSec,
      p50: st.p50,
      p99: st.p99,
      errors: st.errors + rd.errors,
      rssMb: rss.stop(),
      cpu: cost,
      loopP99Ms,
      note: [
        `another tenant's GET p99 ${fmt(rd.p99)} ms during (alone, 10a: ${fmt(base.p99)} ms; ${fmt(rd.p99 / Math.max(base.p99, 1), 1)} ×), p50 ${fmt(rd.p50)} ms, ${rd.total} reads, ${rd.errors} read errors`,
        `${fmt(st.requestsPerSec * mib, 1)} MiB/s staged`,
        perMib,
        `body ${Buffer.byteLength(body)} bytes`,
        `${st.total} stagings answered, ${stored} stored in the window${st.errors ? `, statuses ${st.statuses}` : ''}`,
        loopNote(),
      ]
        .filter(Boolean)
        .join('; '),
    });
  }
  return rows;
}
