import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'minor'; execution: 'sync' }) => void;

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
