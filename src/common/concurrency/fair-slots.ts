import { CallerGoneError } from './caller-signal.js';

/**
 * At most `slots` holders at a time. The others wait in one queue per key (a tenant); a freed slot
 * goes to the waiting key that holds the fewest slots, the one served longest ago among equals,
 * and within a key first come first served: a key with a thousand waiters delays another key's
 * next waiter by one turn, not by a thousand. A waiter whose `signal` aborts (its caller went
 * away) leaves its queue: a client that queues work and disconnects costs no one a turn.
 */
export class FairSlots<K> {
  private busy = 0;
  private gone = 0;
  /** Slots each key holds now. */
  private readonly held = new Map<K, number>();
  /** Keys with waiters, in the order they were last served (Map keeps insertion order). */
  private readonly queues = new Map<K, Array<() => void>>();

  constructor(private readonly slots: number) {}

  /**
   * Resolves with the release function once a slot is free for `key`. A caller that has to wait
   * is asked for its signal (`signalOf`, called only then) and leaves the queue when it aborts,
   * rejecting with `CallerGoneError` and holding nothing.
   */
  async acquire(key: K, signalOf?: () => AbortSignal | undefined): Promise<() => void> {
    if (this.busy < this.slots) {
      this.busy += 1;
      this.hold(key, 1);
    } else {
      const signal = signalOf?.();
      if (signal?.aborted) {
        this.gone += 1;
        throw new CallerGoneError();
      }
      await this.wait(key, signal);
      if (signal?.aborted) {
        // woken in the same turn as the abort: the slot passes on unused
        this.hold(key, -1);
        this.passOn();
        this.gone += 1;
        throw new CallerGoneError();
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.hold(key, -1);
      this.passOn();
    };
  }

  /** Slots held now. */
  get inUse(): number {
    return this.busy;
  }

  /** Callers that left the queue since the start, their signal aborted (nothing ran for them). */
  get left(): number {
    return this.gone;
  }

  /** Callers waiting for a slot, all keys together. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** `work` in a slot for `key`, released however it ends (`acquire` for `signalOf`). */
  async run<T>(
    key: K,
    work: () => Promise<T>,
    signalOf?: () => AbortSignal | undefined,
  ): Promise<T> {
    const release = await this.acquire(key, signalOf);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Queues for `key` until passOn wakes it (counting the slot as the key's first). */
  private wait(key: K, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((ok, fail) => {
      const wake = (): void => {
        signal?.removeEventListener('abort', leave);
        ok();
      };
      const leave = (): void => {
        const queue = this.queues.get(key);
        const at = queue?.indexOf(wake) ?? -1;
        if (at < 0) return; // woken already
        queue!.splice(at, 1);
        if (queue!.length === 0) this.queues.delete(key);
        this.gone += 1;
        fail(new CallerGoneError());
      };
      signal?.addEventListener('abort', leave, { once: true });
      const queue = this.queues.get(key);
      if (queue) queue.push(wake);
      else this.queues.set(key, [wake]);
    });
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
