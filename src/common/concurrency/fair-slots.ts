/**
 * At most `slots` holders at a time. The others wait in one queue per key (a tenant); a freed slot
 * goes to the waiting key that holds the fewest slots, the one served longest ago among equals,
 * and within a key first come first served: a key with a thousand waiters delays another key's
 * next waiter by one turn, not by a thousand.
 */
export class FairSlots<K> {
  private busy = 0;
  /** Slots each key holds now. */
  private readonly held = new Map<K, number>();
  /** Keys with waiters, in the order they were last served (Map keeps insertion order). */
  private readonly queues = new Map<K, Array<() => void>>();

  constructor(private readonly slots: number) {}

  /** Resolves with the release function once a slot is free for `key`. */
  async acquire(key: K): Promise<() => void> {
    if (this.busy < this.slots) {
      this.busy += 1;
      this.hold(key, 1);
    } else {
      // passOn counts the slot as this key's before it wakes it
      await new Promise<void>((ok) => {
        const queue = this.queues.get(key);
        if (queue) queue.push(ok);
        else this.queues.set(key, [ok]);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.hold(key, -1);
      this.passOn();
    };
  }

  /** `work` in a slot for `key`, released however it ends. */
  async run<T>(key: K, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(key);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private hold(key: K, by: number): void {
    const n = (this.held.get(key) ?? 0) + by;
    if (n === 0) this.held.delete(key);
    else this.held.set(key, n);
  }

  /** The freed slot passes straight to the next waiter (so `busy` stays counted), or is freed. */
  private passOn(): void {
    let next: K | undefined;
    let fewest = Infinity;
    for (const key of this.queues.keys()) {
      const n = this.held.get(key) ?? 0;
      if (n < fewest) [next, fewest] = [key, n];
    }
    const queue = next === undefined ? undefined : this.queues.get(next);
    if (next === undefined || !queue) {
      this.busy -= 1;
      return;
    }
    const wake = queue.shift()!;
    // served: to the back of the rotation, if it still waits
    this.queues.delete(next);
    if (queue.length > 0) this.queues.set(next, queue);
    this.hold(next, 1);
    wake();
  }
}
