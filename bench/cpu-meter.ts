import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time a scenario cost, per request, read from /proc: the measured process (service or raw
 * floor), every PostgreSQL process on the machine, and the host's steal time.
 *
 * Requests per second on this shared 2-core host drift by 2× between runs of the same code, with
 * the hypervisor's steal time; CPU time per request does not (a process is not charged while it
 * waits for a CPU), so it is the figure to compare runs and changes by.
 */
export interface CpuCost {
  /** CPU milliseconds of the measured process per request (all its threads, user + system). */
  processMs: number;
  /** CPU milliseconds of all PostgreSQL processes per request. */
  databaseMs: number;
  /** Share of the host's CPU time the hypervisor gave to other guests during the row, %. */
  stealPct: number;
}

interface Snapshot {
  process: number;
  database: Map<string, number>;
  steal: number;
  total: number;
}

interface Totals {
  process: number;
  database: number;
  steal: number;
  total: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ: fixed at 100 for /proc on Linux

/** utime + stime of one process, in ticks of 10 ms; 0 once it has exited. */
export function processTicks(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which may itself contain spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0; // exited between listing and reading
  }
}

/** utime + stime of every PostgreSQL process, by pid. */
function databaseTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') {
        ticks.set(pid, processTicks(pid));
      }
    } catch {
      // exited between listing and reading
    }
  }
  return ticks;
}

/**
 * PostgreSQL CPU between two readings: a backend that started in between counts in full, one
 * that exited in between is lost (its last ticks cannot be read back), never negative.
 */
export function databaseDelta(before: Map<string, number>, after: Map<string, number>): number {
  let sum = 0;
  for (const [pid, ticks] of after) sum += Math.max(0, ticks - (before.get(pid) ?? 0));
  return sum;
}

function hostTicks(): { steal: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return { steal: cpu[7] ?? 0, total: cpu.slice(0, 8).reduce((a, b) => a + b, 0) };
}

/**
 * Accumulates CPU ticks over one or more measured spans (`begin()` … `end()`), so rows measured
 * in alternating rounds (the issue-3 pair) count their own rounds only.
 */
export class CpuMeter {
  private readonly sum: Totals = { process: 0, database: 0, steal: 0, total: 0 };
  private open: Snapshot | null = null;
  private available = true;

  constructor(private readonly pid: number) {}

  private snapshot(): Snapshot | null {
    try {
      return { process: processTicks(String(this.pid)), database: databaseTicks(), ...hostTicks() };
    } catch {
      return null; // no /proc (not Linux): the row simply has no CPU figures
    }
  }

  begin(): this {
    this.open = this.snapshot();
    if (!this.open) this.available = false;
    return this;
  }

  end(): this {
    const now = this.snapshot();
    if (!this.open || !now) {
      this.available = false;
      return this;
    }
    this.sum.process += now.process - this.open.process;
    this.sum.database += databaseDelta(this.open.database, now.database);
    this.sum.steal += now.steal - this.open.steal;
    this.sum.total += now.total - this.open.total;
    this.open = null;
    return this;
  }

  /** The measured spans' cost divided over `requests`; undefined without /proc. */
  cost(requests: number): CpuCost | undefined {
    if (!this.available || requests <= 0) return undefined;
    const perRequestMs = (ticks: number): number => (ticks * 1000) / TICKS_PER_SECOND / requests;
    return {
      processMs: perRequestMs(this.sum.process),
      databaseMs: perRequestMs(this.sum.database),
      stealPct: this.sum.total > 0 ? (100 * this.sum.steal) / this.sum.total : 0,
    };
  }
}
