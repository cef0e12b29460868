import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/** The V8 heap flags that, given on the command line, override a worker's `resourceLimits`. */
const HEAP_FLAGS = ['max-old-space-size', 'max-semi-space-size'] as const;

/**
 * The heap flags of this process's command line and NODE_OPTIONS (`npm start` gives both), as
 * `--flag=value`; later ones win, as they do for V8.
 */
export function processHeapFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env['NODE_OPTIONS'] ?? '',
): Map<string, string> {
  const found = new Map<string, string>();
  for (const arg of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const m = /^--([a-z_-]+)=(\d+)$/.exec(arg);
    const name = m?.[1]?.replace(/_/g, '-');
    if (m && HEAP_FLAGS.includes(name as (typeof HEAP_FLAGS)[number])) found.set(name!, m[2]!);
  }
  return found;
}

/**
 * Starts a worker whose `resourceLimits` hold. V8 sizes an isolate's heap from its process-wide
 * flags when they are set, and `npm start` sets them for the main thread (256 MB old space,
 * 16 MB semi-spaces): the JSON worker then got the same (a 48 MB young generation and a heap of
 * up to 104 MB under the big-content flood, bench/README.md "Memory under big bodies"). So the
 * flags are zeroed (V8's "unset") while the worker's isolate is made and put back once it runs;
 * the main isolate read them when it was made and does not read them again.
 */
export function withOwnHeapLimits(start: () => Worker): Worker {
  const flags = processHeapFlags();
  if (flags.size === 0) return start();
  const set = (value: (name: string) => string): void => {
    for (const name of flags.keys()) setFlagsFromString(`--${name}=${value(name)}`);
  };
  set(() => '0');
  let worker: Worker;
  try {
    worker = start();
  } catch (err) {
    set((name) => flags.get(name)!);
    throw err;
  }
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    set((name) => flags.get(name)!);
  };
  // its isolate exists once it runs code; one that fails to start restores them too
  worker.once('online', restore);
  worker.once('error', restore);
  worker.once('exit', restore);
  return worker;
}
