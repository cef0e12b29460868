import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<() => AbortSignal>();

/**
 * Runs `work` for a caller that may stop waiting for its answer (an HTTP client that closes its
 * connection): `signalOf()` gives a signal that aborts when it does, made when first asked for.
 * Work that has to queue (`FairSlots`, given `callerSignal`) asks for it then, and leaves the queue
 * instead of running for nobody; a request that never queues never pays for one.
 */
export function runForCaller<T>(signalOf: () => AbortSignal, work: () => T): T {
  return storage.run(signalOf, work);
}

/** The signal of the caller the current work runs for; undefined outside one (workers, CLI). */
export function callerSignal(): AbortSignal | undefined {
  return storage.getStore()?.();
}

/**
 * The caller went away while its work waited its turn: nothing ran, and no answer is sent (the
 * problem filter drops it).
 */
export class CallerGoneError extends Error {
  constructor() {
    super('the caller went away before its turn came');
    this.name = 'CallerGoneError';
  }
}
