import type { ErrorCode } from '../../common/http/error-codes.js';
import type { StorableContent } from '../../common/http/storable-content.js';
import type { LineError } from './import-line.js';
import type { ImportLine } from './platform/dto/import-line.request.js';

/**
 * Lines written per transaction: few commits (each checks the batch's deferred foreign keys and
 * flushes its WAL), yet a short hold on the rows and two batches of memory at most.
 */
export const IMPORT_BATCH_LINES = 1000;
/** A batch also ends once it holds this much line text, whatever the number of lines. */
export const IMPORT_BATCH_BYTES = 8 * 1024 * 1024;
/** Errors kept in the answer; later ones are counted by no one (the first are what one fixes). */
export const IMPORT_ERRORS_KEPT = 100;

export type Counts = { projects: number; documents: number; files: number };

export interface ImportReport {
  created: Counts;
  updated: Counts;
  errors: LineError[];
}

export interface BatchLine {
  number: number;
  line: ImportLine;
  /** A document line's content, checked and hashed before its transaction. */
  stored?: StorableContent;
}

/** What a batch did; merged into the report only once its transaction committed. */
export class Tally {
  readonly created: Counts = { projects: 0, documents: 0, files: 0 };
  readonly updated: Counts = { projects: 0, documents: 0, files: 0 };
  readonly errors: LineError[] = [];

  count(kind: keyof Counts, created: boolean): void {
    (created ? this.created : this.updated)[kind]++;
  }

  refuse(line: number, code: ErrorCode, message: string): void {
    this.errors.push({ line, code, message });
  }

  static refusing(line: number, code: ErrorCode, message: string): Tally {
    const tally = new Tally();
    tally.refuse(line, code, message);
    return tally;
  }

  /** Adds a later batch's counts, and its errors by line up to the first IMPORT_ERRORS_KEPT. */
  merge(other: Tally): void {
    for (const kind of ['projects', 'documents', 'files'] as const) {
      this.created[kind] += other.created[kind];
      this.updated[kind] += other.updated[kind];
    }
    const room = IMPORT_ERRORS_KEPT - this.errors.length;
    if (room > 0) {
      this.errors.push(...other.errors.sort((a, b) => a.line - b.line).slice(0, room));
    }
  }
}

/** Lines read and not yet written, with the errors of the lines refused among them. */
export class Batch {
  readonly lines: BatchLine[] = [];
  readonly errors: LineError[] = [];
  bytes = 0;

  refused(line: number, code: ErrorCode, message: string): void {
    // the batch's errors are kept only until it is written: beyond the answer's, none is needed
    if (this.errors.length < IMPORT_ERRORS_KEPT) this.errors.push({ line, code, message });
  }
}
