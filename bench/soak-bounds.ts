/**
 * The soak's (9c, issue 23) figures and what "bounded" means for them; pure, so that
 * soak-bounds.spec.ts can hold the definition to account.
 */

/** The tables the retention sweeper keeps bounded. */
export const SOAK_TABLES = [
  'access_tokens',
  'events',
  'webhook_deliveries',
  'webhook_delivery_attempts',
] as const;
export type SoakTable = (typeof SOAK_TABLES)[number];

export interface SoakSample {
  /** Seconds since the soak's load started (the first sample, at 0, is taken just before). */
  t: number;
  counts: Record<SoakTable, number>;
  /** Tokens the load had been issued by then (a row each). */
  tokens: number;
  /** Stagings the load had made by then (an event, a delivery and its attempt each). */
  stagings: number;
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface SoakInfo {
  /** The HTTP adapter the soak's service ran on. */
  adapter: string;
  /** BENCH_SOAK: seconds of load asked for. */
  seconds: number;
  /** Seconds the load actually lasted. */
  elapsedSec: number;
  tokenTtlSec: number;
  tokenGraceSec: number;
  eventWindowSec: number;
  sweepMs: number;
  /** Seconds past its window a row may live (the sweep's lag, sampling): see `bound`. */
  slackSec: number;
  /** Steady seconds a table needs for its bound to count as measured. */
  minSteadySec: number;
  samples: SoakSample[];
  /** The read path at the start and at the end, under the same load. */
  start: LoadFigures;
  end: LoadFigures;
  /** Seconds into the load each read window opened. */
  startAtSec?: number;
  endAtSec?: number;
  failures: number;
  delivered: number;
  rssStartMb?: number;
  rssEndMb?: number;
}

export interface Bound {
  table: SoakTable;
  /** How long a row of this table lives: ttl + grace (tokens), the event window (the rest). */
  windowSec: number;
  /** window + slack: from then on every sample counts. */
  settleSec: number;
  /** Seconds from the first to the last steady sample (0 without any). */
  steadySec: number;
  /**
   * The largest, over the steady samples, of the table's rows ÷ (the rows there were before the
   * load + the rows the load created since the first sample at most `settleSec` old). A table
   * that keeps no row longer than its window plus the slack stays ≤ 1 whatever the load's rate;
   * one that keeps everything reaches t ÷ settle. Undefined when the steady samples span less
   * than `minSteadySec` (the soak too short to tell).
   */
  ratio?: number;
  /** Most rows over the steady samples. */
  peak?: number;
  /** The steady samples' second half's peak ÷ their first half's: shows the plateau. */
  halves?: number;
}

const windowOf = (info: SoakInfo, table: SoakTable): number =>
  table === 'access_tokens' ? info.tokenTtlSec + info.tokenGraceSec : info.eventWindowSec;

const createdBy = (s: SoakSample, table: SoakTable): number =>
  table === 'access_tokens' ? s.tokens : s.stagings;

export function bound(info: SoakInfo, table: SoakTable): Bound {
  const windowSec = windowOf(info, table);
  const settleSec = windowSec + info.slackSec;
  const samples = [...info.samples].sort((a, b) => a.t - b.t);
  const first = samples[0];
  const steady = samples.filter((s) => s.t >= settleSec);
  const steadySec = steady.length ? steady.at(-1)!.t - steady[0]!.t : 0;
  const out: Bound = { table, windowSec, settleSec, steadySec };
  if (!first || steady.length < 2 || steadySec < info.minSteadySec) return out;
  const setup = first.counts[table];
  let ratio = 0;
  for (const s of steady) {
    // the oldest sample still within settleSec of this one: created since then
    const from = samples.find((u) => u.t >= s.t - settleSec) ?? s;
    const allowed = setup + createdBy(s, table) - createdBy(from, table);
    ratio = Math.max(ratio, s.counts[table] / Math.max(allowed, 1));
  }
  const peakOf = (xs: SoakSample[]): number => Math.max(...xs.map((s) => s.counts[table]));
  const mid = steady[0]!.t + steadySec / 2;
  const firstHalf = steady.filter((s) => s.t <= mid);
  const secondHalf = steady.filter((s) => s.t > mid);
  const early = firstHalf.length ? peakOf(firstHalf) : 0;
  return {
    ...out,
    ratio,
    peak: peakOf(steady),
    halves: secondHalf.length && early > 0 ? peakOf(secondHalf) / early : undefined,
  };
}
