/**
 * At most `slots` holders per key at a time (each `acquire` names its own count); the others wait
 * for the key's next free slot, first come first served. Nothing is refused: a caller only waits.
 * A key is kept only while a slot of it is held.
 */
export class KeyedSlots {
  private readonly keys = new Map<string, { held: number; waiting: Array<() => void> }>();

  /** Resolves with the release function once `key` has fewer than `slots` holders. */
  async acquire(key: string, slots: number): Promise<() => void> {
    let entry = this.keys.get(key);
    if (entry === undefined) {
      entry = { held: 0, waiting: [] };
      this.keys.set(key, entry);
    }
    const own = entry;
    if (own.held < slots) own.held += 1;
    // a released slot is handed over as it is: `held` stays
    else await new Promise<void>((resolve) => own.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = own.waiting.shift();
      if (next) return next();
      own.held -= 1;
      if (own.held === 0) this.keys.delete(key);
    };
  }

  /** Keys with a slot held now. */
  get size(): number {
    return this.keys.size;
  }
}
