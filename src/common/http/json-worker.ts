import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationFailedError } from './app-error.js';
import { BodyError } from './body-decoding.js';
import type { JsonLimits } from './json-limits.js';
import { decodeBigJson } from './json-prepare.js';
import { releaseWorkerGarbage } from './young-garbage.js';
import type { JsonJob, JsonJobAnswer } from './json-worker-pool.js';

/**
 * The JSON worker's thread (json-worker-pool.ts starts it): decodes and prepares big JSON bodies
 * one at a time, off the service's event loop, and answers what it made or why it refused.
 */
lowerOwnPriority();

parentPort?.on('message', (job: JsonJob) => {
  const answer = run(job);
  // the canonical texts are moved, not copied (each has its memory to itself: jsonbBytes)
  const moved = 'decoded' in answer ? answer.decoded.prepared.map((m) => m.jsonb.buffer) : [];
  parentPort!.postMessage(answer, moved as ArrayBuffer[]);
  releaseWorkerGarbage();
});

function run(job: JsonJob): JsonJobAnswer {
  const headers: IncomingHttpHeaders = job.headers;
  const limits: JsonLimits = job.limits;
  try {
    // a view of the transferred bytes, not a copy of them
    const { buffer, byteOffset, byteLength } = job.bytes;
    const bytes = Buffer.from(buffer, byteOffset, byteLength);
    // the bytes' memory is freed once they are text (detached: ES2024's transfer)
    const free = (): void =>
      void (buffer as unknown as { transfer(length: number): unknown }).transfer(0);
    const decoded = decodeBigJson(headers, bytes, job.limit, limits, free);
    return { id: job.id, decoded };
  } catch (err) {
    if (err instanceof ValidationFailedError) {
      return { id: job.id, refused: { kind: 'validation', errors: err.errors } };
    }
    if (err instanceof BodyError) {
      const errors = (err as { errors?: unknown }).errors;
      return {
        id: job.id,
        refused: { kind: 'body', type: err.type, message: err.message, errors },
      };
    }
    return { id: job.id, failed: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * On Linux, this thread alone yields the CPU to the event loop's (a thread's id is a process id to
 * `setpriority`): on a busy machine the small requests are served first, the big body waits.
 * Best effort: elsewhere, or where the call is refused, the thread runs at the process's priority.
 */
function lowerOwnPriority(): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: nothing lost but the preference
  }
}
