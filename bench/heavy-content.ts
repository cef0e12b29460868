import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CpuMeter } from './cpu-meter.js';
import type { LoopDelayWindow } from './event-loop.js';
import {
  cli,
  contentOf,
  http,
  load,
  type LoadResult,
  type ManagedProcess,
  RssSampler,
} from './harness.js';
import { type Measured, unavailable } from './report.js';

/**
 * Issue 39 item 4, group 10: stagings of 1 and 4 MiB of `content`, wide (few values, long strings)
 * and deep (60 levels, ~90,000 values), at a few connections, while another tenant reads a small
 * document at a steady rate; 10a is that read alone, the baseline of the same turn.
 */
export const MIB = 1024 * 1024;

export type Shape = 'wide' | 'deep';
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
/** Enough connections that a slow answer delays few of the reader's next requests. */
const READER_CONNECTIONS = 4;

/** Levels and entries per level of the deep shape: depth 62 and ~90,000 values, within 64 and 100,000. */
const DEEP_LEVELS = 60;
const DEEP_ENTRIES = 500;
const WIDE_SECTION_CHARS = 16 * 1024;

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

/** mulberry32: the same text every run, so every run stages the same bytes. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'access control policy scope systems review owner record evidence audit risk asset ' +
  'supplier incident change backup recovery encryption key network logging monitoring ' +
  'training approval exception register version annual quarterly retention disposal'
).split(' ');

/** `length` characters of lowercase words and spaces: compressible as prose is, no escapes. */
export function prose(length: number, rand: () => number): string {
  let out = '';
  while (out.length < length) out += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
  return out.slice(0, length);
}

/** The content without its padding: long strings in a flat list, or a chain of levels. */
function contentOfShape(shape: Shape, bytes: number, rand: () => number): Record<string, unknown> {
  if (shape === 'wide') {
    const sections = Math.floor(bytes / (WIDE_SECTION_CHARS + 40));
    return {
      title: 'Heavy content (wide)',
      sections: Array.from({ length: sections }, (_, i) => ({
        heading: `Section ${i + 1}`,
        body: prose(WIDE_SECTION_CHARS, rand),
      })),
    };
  }
  // an entry {"k":"…8…","v":"…"}, is 24 characters around its value
  const valueChars = Math.max(1, Math.floor((bytes * 0.98) / (DEEP_LEVELS * DEEP_ENTRIES)) - 24);
  let level: Record<string, unknown> | undefined;
  for (let i = DEEP_LEVELS; i >= 1; i--) {
    const entries = Array.from({ length: DEEP_ENTRIES }, () => ({
      k: prose(8, rand),
      v: prose(valueChars, rand),
    }));
    level = { level: i, entries, ...(level ? { child: level } : {}) };
  }
  return { title: 'Heavy content (deep)', ...level };
}

/**
 * A staging body of exactly `bytes` bytes: the shape's content, a `padding` string filling the
 * rest (the node and depth counts barely change), and a source reference.
 */
export function heavyBody(shape: Shape, bytes: number): string {
  const content = contentOfShape(shape, bytes, random(bytes + shape.length));
  const body = { content: { ...content, padding: '' }, source_reference: `bench heavy ${shape}` };
  const missing = bytes - JSON.stringify(body).length;
  if (missing < 0) throw new Error(`the ${shape} content is ${-missing} bytes over ${bytes}`);
  body.content.padding = prose(missing, random(missing));
  return JSON.stringify(body);
}

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
  const t = await cli<{ tenant_id: number }>(env, [
    'tenant',
    'create',
    '--name',
    'Reader',
    '--plan',
    'enterprise',
  ]);
  const c = await cli<{ client_id: string; client_secret: string }>(env, [
    'client',
    'create',
    '--tenant',
    String(t.tenant_id),
    '--name',
    'reader',
    '--scopes',
    'projects:read documents:read',
  ]);
  const p = await cli<{ projectId: number }>(env, [
    'project',
    'create',
    '--tenant',
    String(t.tenant_id),
    '--name',
    'Reader project',
  ]);
  const readerDocumentId = await document(p.projectId, 'Reader policy');
  const r = await http(baseUrl, 'POST', '/api/v1/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: c.client_id,
      client_secret: c.client_secret,
      ttl: 86400,
    },
  });
  if (r.status !== 200) throw new Error(`reader token: status ${r.status}`);
  const readerToken = (r.body as { access_token: string }).access_token;
  return { documentId, readerToken, readerDocumentId };
}

export interface HeavyOptions {
  svc: ManagedProcess;
  token: string | undefined;
  setup: () => Promise<HeavySetup>;
  durationSec: number;
  warmupSec: number;
  wanted: (id: string) => boolean;
  loop: LoopDelayWindow;
  log: (msg: string) => void;
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);

/** Group 10 on one adapter: 10a (the other tenant's read alone), then 10b-10e beside it. */
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
  const read = (seconds: number): Promise<LoadResult> =>
    load({
      url: `${svc.baseUrl}/api/v1/documents/${setup.readerDocumentId}`,
      headers: { authorization: `Bearer ${setup.readerToken}` },
      durationSec: seconds,
      connections: READER_CONNECTIONS,
      overallRate: READER_RATE,
    });
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

  /** One measured window: the loop's scrapes outside it, CPU and RSS over it. */
  const window = async <T>(run: () => Promise<T>) => {
    await loop.begin();
    const rss = new RssSampler(svc.pid).start();
    const cpu = new CpuMeter(svc.pid).begin();
    const result = await run();
    cpu.end();
    const rssMb = rss.stop();
    const loopP99Ms = await loop.end();
    const loopNote = loop.problem ? `event-loop p99 n/a: ${loop.problem}` : '';
    return { result, rssMb, cpu, loopP99Ms, loopNote };
  };

  o.log(`scenario 10a: ${NAMES_10['10a']}`);
  if (o.warmupSec > 0) await read(o.warmupSec);
  const alone = await window(() => read(o.durationSec));
  const base = alone.result;
  const rows: Measured[] = [
    {
      id: '10a',
      name: NAMES_10['10a']!,
      available: true,
      rps: base.requestsPerSec,
      p50: base.p50,
      p99: base.p99,
      errors: base.errors,
      rssMb: alone.rssMb,
      cpu: alone.cpu.cost(base.total),
      loopP99Ms: alone.loopP99Ms,
      note: [
        `tenant "Reader", ${READER_CONNECTIONS} connections at ${READER_RATE}/s in all`,
        `${base.total} requests`,
        alone.loopNote,
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
    if (o.warmupSec > 0) await Promise.all([stage(body, o.warmupSec), read(o.warmupSec)]);
    const w = await window(() => Promise.all([stage(body, o.durationSec), read(o.durationSec)]));
    const [st, rd] = w.result;
    const mib = Buffer.byteLength(body) / MIB;
    const cost = w.cpu.cost(st.total);
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
      rssMb: w.rssMb,
      cpu: cost,
      loopP99Ms: w.loopP99Ms,
      note: [
        `another tenant's GET p99 ${fmt(rd.p99)} ms during (alone, 10a: ${fmt(base.p99)} ms; ${fmt(rd.p99 / Math.max(base.p99, 1), 1)} ×), p50 ${fmt(rd.p50)} ms, ${rd.total} reads, ${rd.errors} read errors`,
        `${fmt(st.requestsPerSec * mib, 1)} MiB/s staged`,
        perMib,
        `body ${Buffer.byteLength(body)} bytes`,
        `${st.total} stagings${st.errors ? `, statuses ${st.statuses}` : ''}`,
        w.loopNote,
      ]
        .filter(Boolean)
        .join('; '),
    });
  }
  return rows;
}
