// Writes test/support/test-durations.json from a jest run's `--json` output:
//   npm test -- --json --outputFile=/tmp/run.json && node scripts/test-durations.mjs /tmp/run.json
// The sequencer (test/support/sequencer.mjs) starts the longest files first on a fresh clone.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const input = process.argv[2];
if (!input) throw new Error('usage: node scripts/test-durations.mjs <jest --json output>');
const run = JSON.parse(readFileSync(input, 'utf8'));
const seconds = {};
for (const file of run.testResults) {
  const path = relative(root, file.name);
  // unit specs take well under a second each: their order does not matter
  if (!path.startsWith('test/')) continue;
  seconds[path] = Math.max(1, Math.round((file.endTime - file.startTime) / 1000));
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(
  resolve(root, 'test/support/test-durations.json'),
  `${JSON.stringify({ source: 'npm test -- --json (scripts/test-durations.mjs)', seconds: sorted }, null, 2)}\n`,
);
