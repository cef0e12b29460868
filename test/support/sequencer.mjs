import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import sequencer from '@jest/test-sequencer';

// Node 24 hands an ES module the CommonJS `exports.default` (flagged __esModule); Node 20 the exports
const TestSequencer = typeof sequencer === 'function' ? sequencer : sequencer.default;

/** Seconds each e2e file took in a recorded run (scripts/test-durations.mjs writes it). */
const recorded = JSON.parse(
  readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'),
).seconds;

/**
 * jest's own order (last run's failures first, then the longest files first), with the recorded
 * durations standing in where this machine has no timings of its own: on a fresh clone, as in CI,
 * jest would otherwise order by file size and could start a two-minute file last, leaving one
 * worker busy while the other idles.
 */
export default class RecordedDurationsSequencer extends TestSequencer {
  time(test) {
    const own = super.time(test);
    if (own !== undefined) return own;
    const seconds = recorded[relative(test.context.config.rootDir, test.path)];
    return seconds === undefined ? undefined : seconds * 1000;
  }
}
