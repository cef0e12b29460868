import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  bound,
  SOAK_TABLES,
  type SoakInfo,
  type SoakSample,
  type SoakTable,
} from './soak-bounds.js';

const SAMPLE_EVERY = 5;

const base = (samples: SoakSample[], seconds: number): SoakInfo => ({
  adapter: 'express',
  seconds,
  elapsedSec: seconds,
  tokenTtlSec: 300,
  tokenGraceSec: 0,
  eventWindowSec: 20,
  sweepMs: 1000,
  slackSec: 15,
  minSteadySec: 60,
  samples,
  start: { rps: 1, p50: 1, p99: 1, errors: 0 },
  end: { rps: 1, p50: 1, p99: 1, errors: 0 },
  failures: 0,
  delivered: 0,
});

/**
 * A soak of `rates.length` seconds creating rates[i] rows in second i (tokens and stagings
 * alike), each kept `keep(window)` seconds (Infinity: never deleted), sampled every 5 s.
 */
function simulate(rates: number[], keep: (windowSec: number) => number, setup = 3): SoakInfo {
  const windows: Record<SoakTable, number> = {
    access_tokens: 300,
    events: 20,
    webhook_deliveries: 20,
    webhook_delivery_attempts: 20,
  };
  const samples: SoakSample[] = [];
  for (let t = 0; t <= rates.length; t += SAMPLE_EVERY) {
    const created = rates.slice(0, t).reduce((a, b) => a + b, 0);
    const counts = Object.fromEntries(
      SOAK_TABLES.map((table) => {
        const life = keep(windows[table]);
        // rows of second i (created at its end) are alive at t while t - (i + 1) < life
        const alive = rates.slice(0, t).reduce((n, r, i) => (t - (i + 1) < life ? n + r : n), 0);
        return [table, setup + alive];
      }),
    ) as Record<SoakTable, number>;
    samples.push({ t, counts, tokens: created, stagings: created });
  }
  return base(samples, rates.length);
}

const rates = (seconds: number) =>
  fc.array(fc.integer({ min: 1, max: 200 }), { minLength: seconds, maxLength: seconds });

describe('soak bounds (9c)', () => {
  it('a table that deletes each row within its window + 10 s stays ≤ 1 × whatever the rate', () => {
    fc.assert(
      fc.property(rates(420), fc.integer({ min: 0, max: 10 }), (r, lag) => {
        const info = simulate(r, (w) => w + lag);
        for (const table of SOAK_TABLES) {
          const b = bound(info, table);
          expect(b.ratio).toBeDefined();
          expect(b.ratio!).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('a table that keeps every row exceeds 1 × once the soak is past its window + slack', () => {
    fc.assert(
      fc.property(rates(420), (r) => {
        const info = simulate(r, () => Infinity);
        for (const table of SOAK_TABLES) {
          const b = bound(info, table);
          expect(b.ratio!).toBeGreaterThan(1);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('a table whose rows outlive the window by much more than the slack is caught', () => {
    const info = simulate(new Array<number>(420).fill(50), (w) => w + 30);
    for (const table of SOAK_TABLES) expect(bound(info, table).ratio!).toBeGreaterThan(1);
  });

  it('a soak too short for a window is "not measured", not met', () => {
    // 360 s: the tokens' steady part (from 315 s) spans 45 s < 60 s; the events' is long enough
    const info = simulate(new Array<number>(360).fill(50), (w) => w);
    expect(bound(info, 'access_tokens').ratio).toBeUndefined();
    expect(bound(info, 'access_tokens').steadySec).toBe(45);
    expect(bound(info, 'events').ratio).toBeDefined();
  });

  it('shows the plateau: the steady halves have the same peak at a constant rate', () => {
    const info = simulate(new Array<number>(420).fill(70), (w) => w + 1);
    const tokens = bound(info, 'access_tokens');
    expect(tokens.peak).toBe(3 + 70 * 301);
    expect(tokens.halves).toBeCloseTo(1, 5);
    const kept = bound(
      simulate(new Array<number>(420).fill(70), () => Infinity),
      'access_tokens',
    );
    expect(kept.halves!).toBeGreaterThan(1.1);
  });
});
