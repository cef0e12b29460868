import { describe, expect, it } from '@jest/globals';
import { CpuMeter, databaseDelta } from './cpu-meter.js';

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Uses `ms` of this process's CPU time (not wall time: the host may be busy or stolen). */
function burn(ms: number): void {
  const until = cpuMs() + ms;
  let x = 0;
  while (cpuMs() < until) x += Math.sqrt(x + 1);
  if (Number.isNaN(x)) throw new Error('unreachable');
}

/** /proc counts in 10 ms ticks, sampled at each end of a span. */
const TICK_SLACK_MS = 25;

describe('CpuMeter (bench CPU per request)', () => {
  it('charges the measured process the CPU it used, divided over the requests', () => {
    const meter = new CpuMeter(process.pid).begin();
    const before = cpuMs();
    burn(300);
    const used = cpuMs() - before;
    const cost = meter.end().cost(3);
    expect(cost).toBeDefined();
    expect(Math.abs(cost!.processMs * 3 - used)).toBeLessThanOrEqual(TICK_SLACK_MS);
    expect(cost!.databaseMs).toBeGreaterThanOrEqual(0);
    expect(cost!.stealPct).toBeGreaterThanOrEqual(0);
    expect(cost!.stealPct).toBeLessThanOrEqual(100);
  });

  it('counts only the spans between begin() and end()', () => {
    const meter = new CpuMeter(process.pid);
    let measured = 0;
    for (let i = 0; i < 2; i++) {
      meter.begin();
      const before = cpuMs();
      burn(150);
      measured += cpuMs() - before;
      meter.end();
      burn(300); // between spans: not counted
    }
    expect(Math.abs(meter.cost(1)!.processMs - measured)).toBeLessThanOrEqual(2 * TICK_SLACK_MS);
  });

  it('has no figure for a row without requests', () => {
    expect(new CpuMeter(process.pid).begin().end().cost(0)).toBeUndefined();
  });

  it('counts PostgreSQL backends that started during the row in full and never goes negative', () => {
    const before = new Map([
      ['10', 500], // runs throughout: +20
      ['11', 900], // exits during the row: its last ticks are lost, not subtracted
    ]);
    const after = new Map([
      ['10', 520],
      ['12', 7], // started during the row
    ]);
    expect(databaseDelta(before, after)).toBe(27);
  });
});
