import { existsSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { type FieldError, ValidationFailedError } from './app-error.js';
import { BodyError, type BodyErrorType } from './body-decoding.js';
import type { JsonLimits } from './json-limits.js';
import type { DecodedBigJson } from './json-prepare.js';
import { PreparedJson } from './prepared-json.js';
import { withOwnHeapLimits } from './worker-heap-limits.js';

/** A big JSON body for the worker; `bytes` is transferred, not copied. */
export interface JsonJob {
  id: number;
  headers: { 'content-type'?: string; 'content-encoding'?: string };
  bytes: Uint8Array;
  limit: number;
  limits: JsonLimits;
}

export type JsonJobAnswer = { id: number } & (
  | { decoded: DecodedBigJson }
  | {
      refused:
        | { kind: 'validation'; errors: FieldError[] }
        | { kind: 'body'; type: BodyErrorType; message: string; errors: unknown };
    }
  | { failed: string }
);

/**
 * Heap of the worker: the worst 5 MiB bodies within CONTENT_MAX_NODES (100,000 keys of 44
 * characters; 100,000 strings; one 5 MiB string) peaked at 34 MB used with 40 MB allowed
 * (bench/README.md, "Big content"). `--max-old-space-size` and `--max-semi-space-size` on the
 * command line (`npm start`) would override them (V8's process-wide settings): the worker is made
 * without them (worker-heap-limits.ts). A small young generation: its objects die young anyway,
 * and every MB of it counts in the process's RSS.
 */
const WORKER_HEAP_MB = 64;
const WORKER_YOUNG_MB = 4;

/**
 * The worker's script: the compiled `json-worker.js` beside this module. Under jest the sources
 * are TypeScript, and the worker runs the build of them (`npm test` builds first).
 */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const beside = here.replace(/json-worker-pool\.[jt]s$/, 'json-worker.js');
  if (here.endsWith('.js') || existsSync(beside)) return beside;
  return beside.replace(/([\\/])src([\\/]common[\\/]http[\\/])/, '$1dist$1src$2');
}

interface Pending {
  resolve: (answer: JsonJobAnswer) => void;
  reject: (err: Error) => void;
}

/** A worker thread and the jobs it holds: a worker that fails fails only its own jobs. */
interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Ends the worker once it has been idle for the idle time; cleared by the next job. */
  idle: NodeJS.Timeout | null;
}

/** A job not answered in this time ends its worker (a body never takes near it). */
const JOB_TIMEOUT_MS = 30_000;

/**
 * An idle worker exits after this: its isolate (heap, code, stacks; 25-30 MB of the process's RSS
 * at rest) is held only while big bodies keep coming. Starting one again costs its thread tens of
 * ms, not the event loop (bench/README.md, "Memory at rest").
 */
const IDLE_EXIT_MS = 2_000;

/**
 * One worker thread that decodes big JSON bodies (json-prepare.ts) one after the other, started on
 * the first, restarted after a failure, and ended once idle for `idleMs`. One is enough: big
 * bodies take turns in the process anyway (request-body.ts), and the machine's other core serves
 * the event loop.
 */
export class JsonWorker {
  private running: Running | null = null;
  private nextId = 1;
  private readonly log = new Logger('JsonWorker');
  /** Jobs answered, and workers started, for tests and metrics. */
  answered = 0;
  starts = 0;

  constructor(
    private readonly script: string = workerScript(),
    private readonly idleMs: number = IDLE_EXIT_MS,
  ) {}

  /** Whether a worker thread exists now (started and not yet ended). */
  get alive(): boolean {
    return this.running !== null;
  }

  run(job: Omit<JsonJob, 'id'>): Promise<JsonJobAnswer> {
    const id = this.nextId++;
    const running = this.started();
    const { worker, pending } = running;
    if (running.idle) clearTimeout(running.idle);
    running.idle = null;
    return new Promise<JsonJobAnswer>((resolve, reject) => {
      // a job in progress keeps the process alive; an idle worker does not
      if (pending.size === 0) worker.ref();
      const timer = setTimeout(() => {
        this.log.error(`a big JSON body took over ${JOB_TIMEOUT_MS} ms: the worker is restarted`);
        void worker.terminate();
      }, JOB_TIMEOUT_MS);
      timer.unref();
      const done = (): void => clearTimeout(timer);
      pending.set(id, {
        resolve: (answer) => (done(), resolve(answer)),
        reject: (err) => (done(), reject(err)),
      });
      worker.postMessage({ ...job, id }, [job.bytes.buffer as ArrayBuffer]);
    });
  }

  private started(): Running {
    if (this.running) return this.running;
    const worker = withOwnHeapLimits(
      () =>
        new Worker(this.script, {
          resourceLimits: {
            maxOldGenerationSizeMb: WORKER_HEAP_MB,
            maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
          },
        }),
    );
    this.starts += 1;
    const running: Running = { worker, pending: new Map(), idle: null };
    const { pending } = running;
    worker.on('message', (answer: JsonJobAnswer) => {
      const job = pending.get(answer.id);
      pending.delete(answer.id);
      this.answered += 1;
      if (pending.size === 0) {
        worker.unref();
        running.idle = setTimeout(() => this.endIdle(running), this.idleMs);
        running.idle.unref();
      }
      job?.resolve(answer);
    });
    const fail = (err: Error): void => {
      if (running.idle) clearTimeout(running.idle);
      if (this.running === running) this.running = null;
      for (const job of pending.values()) job.reject(err);
      pending.clear();
    };
    worker.on('error', (err: Error) => {
      // its heap (a body past what it may hold) or a bug: the next body gets a new worker
      this.log.error(`the JSON worker failed: ${err.message}`);
      fail(err);
    });
    worker.on('exit', (code) => fail(new Error(`the JSON worker exited with code ${code}`)));
    // idle, never keeps the process alive (after the listeners: a 'message' one refs it)
    worker.unref();
    this.running = running;
    return running;
  }

  /** Ends a worker with no job: the next job starts a new one. */
  private endIdle(running: Running): void {
    if (running.pending.size > 0 || this.running !== running) return;
    this.running = null;
    void running.worker.terminate();
  }
}

const jsonWorker = new JsonWorker();

/** How many big JSON bodies the worker has answered in this process. */
export function bigJsonBodiesDecoded(): number {
  return jsonWorker.answered;
}

/**
 * `decodeBody` of a big JSON body, in the JSON worker: the event loop only hands the bytes over
 * and takes back the small rest of the body, with each object or array member as a
 * `PreparedJson`. Throws as `decodeBody` does; 413 if the worker could not finish (its heap).
 */
export async function decodeBigJsonOffLoop(
  headers: IncomingHttpHeaders,
  bytes: Buffer,
  limit: number,
  limits: JsonLimits,
): Promise<unknown> {
  // transferred as is when the bytes have their memory to themselves, else a copy of their own
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const own = whole ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes);
  const wanted: JsonJob['headers'] = {};
  if (headers['content-type'] !== undefined) wanted['content-type'] = headers['content-type'];
  if (headers['content-encoding'] !== undefined) {
    wanted['content-encoding'] = headers['content-encoding'];
  }
  let answer: JsonJobAnswer;
  try {
    answer = await jsonWorker.run({ headers: wanted, bytes: own, limit, limits });
  } catch {
    throw new BodyError('entity.too.large', 'the request body is too large to process');
  }
  if ('failed' in answer) throw new Error(`the JSON worker failed: ${answer.failed}`);
  if ('refused' in answer) {
    const { refused } = answer;
    if (refused.kind === 'validation') throw new ValidationFailedError(refused.errors);
    const err = new BodyError(refused.type, refused.message);
    throw refused.errors === undefined ? err : Object.assign(err, { errors: refused.errors });
  }
  const { body, prepared } = answer.decoded;
  for (const member of prepared) {
    // defined, never assigned: no key can reach a setter (the worker refuses `__proto__` anyway)
    Object.defineProperty(body, member.key, {
      value: new PreparedJson(member),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return body;
}
