import { FairSlots } from './fair-slots.js';

/**
 * At most `slots` holders at a time; the others wait their turn, first come first served. A
 * release passes the slot straight to the next in line.
 */
export class FifoSlots {
  private readonly slots: FairSlots<null>;

  constructor(slots = 1) {
    this.slots = new FairSlots(slots);
  }

  /** Resolves with the release function once a slot is free. */
  acquire(): Promise<() => void> {
    return this.slots.acquire(null);
  }
}
