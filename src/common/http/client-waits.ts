import type { ServerResponse } from 'node:http';
import { runForCaller } from '../concurrency/caller-signal.js';
import { whenResponseClosed } from './lingering-close.js';

/**
 * Runs the rest of a request (`next`) as work for its client (`runForCaller`): its signal aborts
 * when the response closes unfinished, i.e. the client closed the connection before its answer.
 * One signal per request, made on first use.
 */
export function runWhileClientWaits(res: ServerResponse, next: () => void): void {
  let signal: AbortSignal | undefined;
  const signalOf = (): AbortSignal => {
    if (!signal) {
      const controller = new AbortController();
      signal = controller.signal;
      whenResponseClosed(res, () => {
        if (!res.writableFinished) controller.abort();
      });
    }
    return signal;
  };
  runForCaller(signalOf, next);
}
