import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: {
  type: 'minor' | 'major';
  execution: 'sync';
  flavor?: 'regular' | 'last-resort';
}) => void;

let gc: Gc | null | undefined;

/**
 * V8's `gc`, from a context made while `--expose-gc` was on; the flag is turned off again at
 * once, so no other context or worker gets a global `gc`. Null where V8 refuses.
 */
function exposedGc(): Gc | null {
  if (gc !== undefined) return gc;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  } catch {
    gc = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return gc;
}

/**
 * Collects the young generation now (a scavenge: a few ms). A big body leaves buffers behind on
 * the main thread (the socket's chunks of its bytes, pg's two copies of its `jsonb` parameter,
 * the parameter itself): memory outside the JS heap, freed once their young handles are
 * collected, but whose size does not make V8 collect them; they piled up to V8's external-memory
 * trigger (~64 MB) under a flood of big bodies (bench/README.md, "Memory under big bodies").
 */
export function collectYoungGarbage(): void {
  exposedGc()?.({ type: 'minor', execution: 'sync' });
}

/**
 * Gives the start-up's garbage back to the system, once, before the service listens: loading the
 * modules and building both Nest apps and their OpenAPI documents grows the young generation to
 * its 32 MB and leaves the old one full of garbage; V8 keeps those pages (freed ones pooled) for
 * the life of the process. V8's memory-pressure collection (several full collections, freed pages
 * returned) takes RSS at rest from ~176 to ~132 MB (bench/README.md, "Memory at rest"), for a
 * few hundred ms of the start, before any request can wait on it.
 */
export function releaseStartupGarbage(): void {
  exposedGc()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * The JSON worker's heap given back after each body (its own isolate: the event loop does not
 * wait on it). A body's parsed value is garbage once answered, but V8 kept its pages (and grew the
 * worker's heap to 2.5× the live size, `--heap-growing-percent`): 40-52 MB of the worker's heap
 * stayed resident under a flood of big bodies; a memory-pressure collection costs the worker tens
 * of ms per body of 5 MB that took it hundreds.
 */
export function releaseWorkerGarbage(): void {
  exposedGc()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
