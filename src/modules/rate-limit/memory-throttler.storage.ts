import { FixedWindowStorage, type WindowState } from './fixed-window.js';

interface Window {
  hits: number;
  endsAt: number;
}

const SWEEP_MS = 60_000;
/** Past this many windows, finished ones are dropped at once rather than at the next sweep. */
const EAGER_SWEEP_AT = 100_000;

/**
 * Throttler counters in process memory, as a fixed window — the same rule as the Redis storage,
 * so one replica and many count alike. @nestjs/throttler's own in-memory storage keeps one
 * timestamp per hit and filters the whole list on every request: at the default 6,000 per minute
 * that is a 6,000-element scan per call, and without a limit (benchmarks) it grows without bound.
 * Here a hit is a map look-up and an increment.
 */
export class MemoryThrottlerStorage extends FixedWindowStorage {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    super();
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  protected hit(key: string, ttl: number, throttlerName: string): WindowState {
    const now = Date.now();
    const id = `${throttlerName}:${key}`;
    let window = this.windows.get(id);
    if (!window || window.endsAt <= now) {
      if (!window && this.windows.size >= EAGER_SWEEP_AT) this.sweep(now);
      window = { hits: 0, endsAt: now + ttl };
      this.windows.set(id, window);
    }
    window.hits += 1;
    return { hits: window.hits, msLeft: window.endsAt - now };
  }

  peek(key: string, throttlerName: string): Promise<WindowState> {
    const window = this.windows.get(`${throttlerName}:${key}`);
    const msLeft = window ? window.endsAt - Date.now() : 0;
    return Promise.resolve(msLeft > 0 ? { hits: window!.hits, msLeft } : { hits: 0, msLeft: 0 });
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(now = Date.now()): void {
    for (const [id, window] of this.windows) if (window.endsAt <= now) this.windows.delete(id);
  }
}
