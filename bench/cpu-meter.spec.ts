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

/**
 * /proc gives user and system time each in whole 10 ms ticks, rounded down: a difference of two
 * readings is off by less than two ticks.
 */
const TICK_SLACK_MS = 20;

/**
 * A begin() or end() itself costs CPU (it scans /proc for PostgreSQL processes, slow on a busy
 * CI host), so the true CPU of the meter's span is only known to lie between the CPU of the
 * work alone and the CPU of the work plus both calls: a span is run with readings on each side
 * of each call.
 */
function measuredSpan(meter: CpuMeter, work: () => void): { least: number; most: number } {
  const outerStart = cpuMs();
  meter.begin();
  const innerStart = cpuMs();
  work();
  const innerEnd = cpuMs();
  meter.end();
  const outerEnd = cpuMs();
  return { least: innerEnd - innerStart, most: outerEnd - outerStart };
}

function expectWithinTicks(
  meteredMs: number,
  span: { least: number; most: number },
  spans = 1,
): void {
  expect(meteredMs).toBeGreaterThanOrEqual(span.least - spans * TICK_SLACK_MS);
  expect(meteredMs).toBeLessThanOrEqual(span.most + spans * TICK_SLACK_MS);
}

describe('CpuMeter (bench CPU per request)', () => {
  it('charges the measured process the CPU it used, divided over the requests', () => {
    const meter = new CpuMeter(process.pid);
    const span = measuredSpan(meter, () => burn(300));
    const cost = meter.cost(3);
    expect(cost).toBeDefined();
    expectWithinTicks(cost!.processMs * 3, span);
    expect(cost!.databaseMs).toBeGreaterThanOrEqual(0);
    expect(cost!.stealPct).toBeGreaterThanOrEqual(0);
    expect(cost!.stealPct).toBeLessThanOrEqual(100);
  });

  it('counts only the spans between begin() and end()', () => {
    const meter = new CpuMeter(process.pid);
    const measured = { least: 0, most: 0 };
    for (let i = 0; i < 2; i++) {
      const span = measuredSpan(meter, () => burn(150));
      measured.least += span.least;
      measured.most += span.most;
      burn(300); // between spans: not counted
    }
    expectWithinTicks(meter.cost(1)!.processMs, measured, 2);
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
