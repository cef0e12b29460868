import { Sql } from './statement.js';

/**
 * TRANSITIONAL: SQL text with `$n` placeholders as a statement, for call sites not yet moved into
 * their context's repository (which build statements with `sql`). Deleted once none is left.
 */
export function legacyStatement<R = Record<string, unknown>>(
  text: string,
  params: readonly unknown[],
): Sql & { readonly __row?: R } {
  const strings: string[] = [];
  const values: unknown[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    strings.push(text.slice(last, match.index));
    values.push(params[Number(match[1]) - 1]);
    last = match.index + match[0].length;
  }
  strings.push(text.slice(last));
  return new Sql(strings, values);
}
