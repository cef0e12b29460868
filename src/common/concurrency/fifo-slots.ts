/**
 * At most `slots` holders at a time; the others wait their turn, first come first served. A
 * release passes the slot straight to the next in line.
 */
export class FifoSlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots = 1) {}

  /** Resolves with the release function once a slot is free. */
  async acquire(): Promise<() => void> {
    if (this.busy >= this.slots) await new Promise<void>((ok) => this.waiting.push(ok));
    else this.busy += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // the slot passes straight to the next in line, so `busy` stays counted
      if (next) next();
      else this.busy -= 1;
    };
  }

  /** `work` in a slot, released however it ends. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
