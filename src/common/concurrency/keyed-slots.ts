import { CallerGoneError } from './caller-signal.js';

/**
 * At most `slots` holders per key at a time (each `acquire` names its own count); the others wait
 * for the key's next free slot, first come first served. Nothing is refused: a caller only waits,
 * or leaves the queue when its `signal` aborts. A key is kept only while a slot of it is held.
 */
export class KeyedSlots {
  private readonly keys = new Map<string, { held: number; waiting: Array<() => void> }>();

  /** Resolves with the release function once `key` has fewer than `slots` holders. */
  async acquire(key: string, slots: number, signal?: AbortSignal): Promise<() => void> {
    let entry = this.keys.get(key);
    if (entry === undefined) {
      entry = { held: 0, waiting: [] };
      this.keys.set(key, entry);
    }
    const own = entry;
    const release = (): void => {
      const next = own.waiting.shift();
      if (next) return next();
      own.held -= 1;
      if (own.held === 0) this.keys.delete(key);
    };
    if (own.held < slots) own.held += 1;
    else {
      if (signal?.aborted) throw new CallerGoneError();
      // a released slot is handed over as it is: `held` stays
      await new Promise<void>((resolve, reject) => {
        const leave = (): void => {
          const at = own.waiting.indexOf(wake);
          if (at >= 0) own.waiting.splice(at, 1);
          reject(new CallerGoneError());
        };
        const wake = (): void => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        own.waiting.push(wake);
        signal?.addEventListener('abort', leave, { once: true });
      });
      // woken in the same turn as the abort: the slot passes on unused
      if (signal?.aborted) {
        release();
        throw new CallerGoneError();
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }

  /** Keys with a slot held now. */
  get size(): number {
    return this.keys.size;
  }

  /** Callers waiting for a slot, all keys together. */
  get waiting(): number {
    let n = 0;
    for (const entry of this.keys.values()) n += entry.waiting.length;
    return n;
  }
}
