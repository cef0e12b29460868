import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CallerGoneError } from './caller-signal.js';
import { FairSlots } from './fair-slots.js';

const settle = () => new Promise((ok) => setImmediate(ok));

interface Caller {
  key: number;
  controller: AbortController;
  /** Gone before it asked, when a slot was free: it gets the slot (only waiters are asked). */
  servedGone: boolean;
  state: 'waiting' | 'holding' | 'released' | 'gone';
  release?: () => void;
}

type Step =
  | { op: 'acquire'; key: number; abortedBefore: boolean }
  | { op: 'release'; pick: number }
  | { op: 'abort'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('acquire' as const),
    key: fc.integer({ min: 0, max: 3 }),
    abortedBefore: fc.oneof(
      { arbitrary: fc.constant(false), weight: 9 },
      { arbitrary: fc.constant(true), weight: 1 },
    ),
  }),
  fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('abort' as const), pick: fc.nat() }),
);

describe('FairSlots', () => {
  it('whatever the order of arrivals, releases and callers leaving: at most `slots` held, no slot idle while a caller waits, a caller gone never holds one, every other caller gets one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(step, { maxLength: 40 }),
        async (slots, steps) => {
          const gate = new FairSlots<number>(slots);
          const callers: Caller[] = [];
          const wrong: string[] = [];
          const inState = (state: Caller['state']) => callers.filter((c) => c.state === state);
          const check = () => {
            const holding = inState('holding').length;
            const waiting = inState('waiting').length;
            expect(holding).toBeLessThanOrEqual(slots);
            if (waiting > 0) expect(holding).toBe(slots);
            expect(gate.waiting).toBe(waiting);
            expect(gate.inUse).toBe(holding);
            expect(gate.left).toBe(inState('gone').length);
            expect(wrong).toEqual([]);
          };
          for (const s of steps) {
            if (s.op === 'acquire') {
              const free = inState('holding').length < slots;
              const caller: Caller = {
                key: s.key,
                controller: new AbortController(),
                servedGone: false,
                state: 'waiting',
              };
              if (s.abortedBefore) caller.controller.abort();
              caller.servedGone = s.abortedBefore && free;
              callers.push(caller);
              gate
                .acquire(s.key, () => caller.controller.signal)
                .then(
                  (release) => {
                    if (caller.controller.signal.aborted && !caller.servedGone) {
                      wrong.push('a caller gone got a slot');
                    }
                    caller.state = 'holding';
                    caller.release = release;
                  },
                  (err: unknown) => {
                    if (!(err instanceof CallerGoneError))
                      wrong.push(`rejected with ${String(err)}`);
                    if (!caller.controller.signal.aborted)
                      wrong.push('a waiting caller was refused');
                    caller.state = 'gone';
                  },
                );
            } else if (s.op === 'release') {
              const holders = inState('holding');
              const holder = holders[s.pick % Math.max(holders.length, 1)];
              if (holder) {
                holder.state = 'released';
                holder.release!();
                holder.release!(); // twice: the second is a no-op
              }
            } else {
              const waiters = inState('waiting');
              waiters[s.pick % Math.max(waiters.length, 1)]?.controller.abort();
            }
            await settle();
            check();
          }
          // releasing every holder in turn serves every caller still waiting
          for (let holders = inState('holding'); holders.length; holders = inState('holding')) {
            for (const holder of holders) {
              holder.state = 'released';
              holder.release!();
            }
            await settle();
            check();
          }
          expect(inState('waiting')).toEqual([]);
          expect(gate.waiting).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('passes the slot on when its caller leaves in the same turn the slot came to it', async () => {
    const gate = new FairSlots<number>(1);
    const release = await gate.acquire(1);
    const gone = new AbortController();
    const started: string[] = [];
    const second = gate.run(
      1,
      async () => void started.push('gone'),
      () => gone.signal,
    );
    const third = gate.run(2, async () => void started.push('stays'));
    await settle();
    release(); // wakes the second…
    gone.abort(); // …which leaves before its continuation runs
    await expect(second).rejects.toBeInstanceOf(CallerGoneError);
    await third;
    expect(started).toEqual(['stays']);
    expect([gate.inUse, gate.waiting]).toEqual([0, 0]);
  });

  it('asks a caller for its signal only when it has to wait', async () => {
    const gate = new FairSlots<number>(1);
    let asked = 0;
    const signalOf = () => {
      asked += 1;
      return new AbortController().signal;
    };
    const release = await gate.acquire(1, signalOf);
    expect(asked).toBe(0);
    const waiter = gate.acquire(1, signalOf);
    expect(asked).toBe(1);
    release();
    (await waiter)();
    expect(gate.inUse).toBe(0);
  });

  it('run() never starts work whose caller has gone, and frees the slot for the next', async () => {
    const gate = new FairSlots<number>(1);
    let finish!: () => void;
    const first = gate.run(1, () => new Promise<void>((ok) => (finish = ok)));
    const gone = new AbortController();
    const started: string[] = [];
    const second = gate.run(
      2,
      async () => void started.push('gone'),
      () => gone.signal,
    );
    const third = gate.run(3, async () => void started.push('stays'));
    await settle();
    expect(gate.waiting).toBe(2);
    gone.abort();
    await expect(second).rejects.toBeInstanceOf(CallerGoneError);
    expect(gate.waiting).toBe(1);
    finish();
    await Promise.all([first, third]);
    expect(started).toEqual(['stays']);
  });
});
