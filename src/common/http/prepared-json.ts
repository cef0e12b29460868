import type { FieldError } from './app-error.js';
import { walkJson } from './json-walk.js';
import { keyTextProblem, textProblem } from './text.js';

/**
 * What free JSON (`content`) may not hold anywhere: a key named `__proto__`, text PostgreSQL or
 * JSON cannot keep (U+0000, a lone surrogate), a number JSON.parse turned into Infinity. The first
 * found, named by its path from `root`.
 */
export function freeJsonProblem(value: unknown, root: string): FieldError | null {
  return walkJson(value, root, {
    leaf: (v) => {
      if (typeof v === 'string') return textProblem(v);
      if (typeof v === 'number' && !Number.isFinite(v)) {
        return 'must be a finite number within the range of a double';
      }
      return null;
    },
    key: (key) => (key === '__proto__' ? 'is not an allowed key' : keyTextProblem(key)),
  });
}

/** A top-level member of a big JSON body as the JSON worker answers it (structured-cloneable). */
export interface PreparedMember {
  readonly key: string;
  /** Whether the value is an array (else an object). */
  readonly array: boolean;
  /** Values in it, its own included (as `jsonLimitProblem` counts them). */
  readonly nodes: number;
  /** What `freeJsonProblem` found in it; then `canonical` and `hash` are empty. */
  readonly problem: FieldError | null;
  /**
   * Its RFC 8785 canonical JSON in PostgreSQL's binary form of `jsonb` (`jsonbBytes`), moved to
   * the event loop's thread without a copy; and the SHA-256 of the JSON (the content hash).
   */
  readonly jsonb: Uint8Array;
  readonly hash: string;
}

/**
 * An object or array member of a big JSON body, parsed, checked, canonicalised and hashed off the
 * event loop (json-worker.ts): the handler gets this in place of the value, whose canonical JSON
 * goes to PostgreSQL as is. Building the value here again would cost the event loop what the
 * worker spared it (JSON.parse of 100,000 values: 70 ms; canonical JSON of them: 160 ms).
 */
export class PreparedJson {
  constructor(readonly member: PreparedMember) {}

  get array(): boolean {
    return this.member.array;
  }

  get nodes(): number {
    return this.member.nodes;
  }

  get problem(): FieldError | null {
    return this.member.problem;
  }

  /** The canonical JSON as a `jsonb` parameter (binary form); only for a member without a problem. */
  get jsonb(): Buffer {
    if (this.member.problem) throw new Error('a refused value has no canonical JSON');
    const { buffer, byteOffset, byteLength } = this.member.jsonb;
    if (byteLength === 0) throw new Error('the canonical JSON was released');
    return Buffer.from(buffer, byteOffset, byteLength);
  }

  /**
   * Frees the canonical JSON's memory now (the request is answered). The request, and so this
   * value, stays reachable until its connection's next request, and a collection after that.
   */
  release(): void {
    // ES2024's ArrayBuffer.prototype.transfer (Node 24): detaching frees the memory at once
    const buffer = this.member.jsonb.buffer as unknown as {
      byteLength: number;
      transfer(length: number): unknown;
    };
    if (buffer.byteLength > 0) buffer.transfer(0);
  }

  /** The canonical JSON as text (made on each call); only for a member without a problem. */
  get canonical(): string {
    return this.jsonb.toString('utf8', 1);
  }

  get hash(): string {
    if (this.member.problem) throw new Error('a refused value has no hash');
    return this.member.hash;
  }
}

/** A free JSON field of a request: as parsed, or prepared off the event loop for a big body. */
export type FreeJsonValue<T> = T | PreparedJson;

/** Frees the canonical JSON of each prepared member of `body` (`PreparedJson.release`). */
export function releasePrepared(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  for (const value of Object.values(body)) if (value instanceof PreparedJson) value.release();
}
