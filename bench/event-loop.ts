/**
 * Issue 39 item 5: the service's event-loop delay during a row, read from its own `/metrics`.
 *
 * prom-client's default metrics keep a `monitorEventLoopDelay` histogram and reset it at every
 * collect (node_modules/prom-client/lib/metrics/eventLoopLag.js), so a scrape just before a row's
 * measured window empties it and a scrape just after reads the window's percentiles. No change to
 * the service: the runner starts it with a METRICS_TOKEN of its own, which serves `/metrics` on the
 * API port. The histogram samples every 10 ms (prom-client's `eventLoopMonitoringPrecision`), and
 * Node records each sample's whole interval, so an idle loop reads about 10 ms, not 0.
 */

/** The p99 gauge prom-client sets from the histogram at each collect, in seconds. */
export const LOOP_P99_METRIC = 'nodejs_eventloop_lag_p99_seconds';

/**
 * The value of `metric` in a Prometheus text exposition (its first sample, labels or not), or
 * undefined when it is missing or not a number. Comment lines (`# HELP`, `# TYPE`) are skipped.
 */
export function metricValue(text: string, metric: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(metric)) continue;
    // the name must end here: `…_p99_seconds_total` is another metric
    const rest = line.slice(metric.length);
    const m = /^(?:\{[^}]*\})?\s+(\S+)(?:\s+-?\d+)?\s*$/.exec(rest);
    if (!m) continue;
    const value = Number(m[1]);
    return Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

/** The event-loop delay p99 a scrape reports, in milliseconds. */
export function loopP99Ms(text: string): number | undefined {
  const seconds = metricValue(text, LOOP_P99_METRIC);
  return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * One row's measured window: `begin()` scrapes (emptying the histogram) right before it,
 * `end()` scrapes right after and returns its p99 in ms. The scrapes fall outside the window's CPU
 * and load figures. A failed scrape makes the row's figure undefined ("n/a"), with `problem` set.
 */
export class LoopDelayWindow {
  problem: string | undefined;
  /** Milliseconds each scrape took (request to last byte), for the cost of the method. */
  readonly scrapeMs: number[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  private async scrape(): Promise<string | undefined> {
    const started = performance.now();
    try {
      const res = await fetch(`${this.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${this.token}` },
      });
      const text = await res.text();
      this.scrapeMs.push(performance.now() - started);
      if (res.status !== 200) {
        this.problem = `GET /metrics answered ${res.status}`;
        return undefined;
      }
      return text;
    } catch (err) {
      this.problem = `GET /metrics failed: ${err instanceof Error ? err.message : String(err)}`;
      return undefined;
    }
  }

  async begin(): Promise<this> {
    this.problem = undefined;
    await this.scrape();
    return this;
  }

  async end(): Promise<number | undefined> {
    if (this.problem) return undefined;
    const text = await this.scrape();
    if (text === undefined) return undefined;
    const p99 = loopP99Ms(text);
    if (p99 === undefined) this.problem = `no ${LOOP_P99_METRIC} in /metrics`;
    return p99;
  }
}
