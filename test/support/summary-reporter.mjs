import { writeSync } from 'node:fs';

/**
 * Ends the run with one plain `N passed, N failed` line on stdout that CI tooling reads. A test
 * file that fails outside its tests (it cannot be loaded, an afterAll throws, its worker dies)
 * counts as one failure of its own.
 */
export default class SummaryReporter {
  constructor(globalConfig) {
    this.watching = Boolean(globalConfig.watch || globalConfig.watchAll);
  }

  onRunComplete(_contexts, results) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const file of results.testResults) {
      passed += file.numPassingTests;
      failed += file.numFailingTests;
      skipped += file.numPendingTests + file.numTodoTests;
      if (file.testExecError) failed++;
    }
    const line = `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`;
    // jest prints its own summary after every reporter's onRunComplete: this line goes last
    if (this.watching) writeSync(1, line);
    else process.once('exit', () => writeSync(1, line));
  }
}
