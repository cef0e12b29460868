import sqlTag, { empty, join, raw, Sql } from 'sql-template-tag';

/**
 * The typed statement layer: every statement is built with the `sql` tagged template, whose
 * `${…}` are bound parameters (never pasted into the text) unless they are statements themselves,
 * which are spliced in with their own parameters. So statements compose (a caller's INSERT inside
 * the outbox's CTE, a page query inside the keyset wrapper) by building, never by rewriting `$n`
 * in SQL text. `R` is the type of one row the statement answers.
 */
export type Statement<R = Record<string, unknown>> = Sql & {
  readonly __row?: R;
  /** The channels its transaction announces once committed (commit-announcer.ts), from its rows. */
  announces?(rows: readonly R[]): readonly string[];
};

/** A statement answering rows of type `R`. */
export function sql<R = Record<string, unknown>>(
  strings: TemplateStringsArray,
  ...parts: readonly unknown[]
): Statement<R> {
  return sqlTag(strings, ...parts);
}

/**
 * `statement`, whose transaction announces `channels(rows)` once it has committed (an autocommit
 * one: once it has run). Only the outermost statement's announcements count.
 */
export function announcing<R>(
  statement: Statement<R>,
  channels: (rows: readonly R[]) => readonly string[],
): Statement<R> {
  return Object.assign(statement, { announces: channels });
}

/**
 * SQL text written by our own code (an identifier, a fragment built from constants), spliced in
 * as it is. Never for a value that came from a request.
 */
export const fragment = (text: string): Sql => raw(text);

export { empty, join, Sql };

/**
 * `statement` with its parameters written into the text, for the simple query protocol (one round
 * trip of several statements has no bind parameters). Only integers are ever inlined, validated
 * here: any other value is an error, never text pasted into SQL.
 */
export function inlined(statement: Sql): string {
  const { strings, values } = statement;
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += inlinedInteger(values[i], i + 1) + strings[i + 1];
  return text;
}

/** A parameter that may be written into SQL text: a safe integer, as decimal digits. */
export function inlinedInteger(value: unknown, position: number): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new Error(`inlined parameter $${position} must be an integer`);
  }
  return String(value);
}

/** Reads sent together in one round trip (`TenantTransactions.runOpening`) and what they mean. */
export interface Batch<T> {
  readonly statements: readonly Sql[];
  /** Their rows, one array per statement in order, turned into the value the work receives. */
  read(results: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>): T;
}

/** One statement as a batch whose value is `read` of its rows. */
export function batchOf<R, T>(statement: Statement<R>, read: (rows: readonly R[]) => T): Batch<T> {
  return { statements: [statement], read: ([rows = []]) => read(rows as readonly R[]) };
}

/** Two batches as one, in order. */
export function batches<A, B>(a: Batch<A>, b: Batch<B>): Batch<[A, B]> {
  const split = a.statements.length;
  return {
    statements: [...a.statements, ...b.statements],
    read: (results) => [a.read(results.slice(0, split)), b.read(results.slice(split))],
  };
}
