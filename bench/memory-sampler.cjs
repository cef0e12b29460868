'use strict';
/**
 * Preloaded with `node --require bench/memory-sampler.cjs` (a `--require` runs in worker threads
 * too; `--import` does not): every MEMORY_SAMPLE_MS (50) ms each thread appends one JSON line of
 * its heap figures to MEMORY_SAMPLES_FILE. A thread busy with one long synchronous step (the JSON
 * worker's decode) samples before and after it. Does nothing without MEMORY_SAMPLES_FILE.
 */
// the built-ins as an ES module would get them (this file is CommonJS for --require)
const { appendFileSync } = process.getBuiltinModule('node:fs');
const v8 = process.getBuiltinModule('node:v8');
const { isMainThread, threadId } = process.getBuiltinModule('node:worker_threads');

const file = process.env.MEMORY_SAMPLES_FILE;
if (file) {
  const MB = 1024 * 1024;
  const round = (n) => Math.round((n / MB) * 10) / 10;
  const every = Number(process.env.MEMORY_SAMPLE_MS ?? 50);
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) {
      spaces[s.space_name.replace(/_space$/, '')] = round(s.physical_space_size);
    }
    const h = v8.getHeapStatistics();
    const line = {
      t: Date.now(),
      thread: isMainThread ? 'main' : `worker-${threadId}`,
      rss: round(m.rss),
      heapTotal: round(m.heapTotal),
      heapUsed: round(m.heapUsed),
      external: round(m.external),
      arrayBuffers: round(m.arrayBuffers),
      physical: round(h.total_physical_size),
      malloced: round(h.malloced_memory),
      spaces,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(sample, every).unref();
  // a worker busy with one body samples nothing during it: sample as it answers (its heap then
  // still holds what the body made, the nearest to its peak a sample can see)
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  if (parentPort) {
    const post = parentPort.postMessage;
    parentPort.postMessage = function (...args) {
      sample();
      return post.apply(this, args);
    };
  }
}
