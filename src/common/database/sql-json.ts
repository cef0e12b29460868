/**
 * A timestamp as JSON text exactly as `Date.prototype.toISOString` writes it (UTC, milliseconds),
 * for read paths that let PostgreSQL build the response JSON in the same statement.
 */
export const isoTimestamp = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One member of `jsonObjectText`: an SQL expression of type text that is the member's JSON value,
 * `null` for SQL NULL.
 */
export type JsonValueSql = string & { readonly __jsonValueSql: true };

/** The JSON values of SQL expressions, as text, the way `JSON.stringify` writes them. */
export const jsonValue = {
  /** An integer column (int, bigint): its decimal digits. */
  integer: (sql: string): JsonValueSql => `COALESCE((${sql})::text, 'null')` as JsonValueSql,
  /**
   * Text, a text array, or anything `to_json` writes compactly. PostgreSQL escapes a string exactly
   * as `JSON.stringify` does (`\"`, `\\`, `\b \f \n \r \t`, `\u00xx` for the other control
   * characters, everything else as is; sql-json.spec.ts checks it).
   */
  text: (sql: string): JsonValueSql => `COALESCE(to_json(${sql})::text, 'null')` as JsonValueSql,
  /** A timestamptz, as `isoTimestamp` writes it. */
  timestamp: (sql: string): JsonValueSql =>
    `COALESCE('"' || ${isoTimestamp(sql)} || '"', 'null')` as JsonValueSql,
  /** An expression that already is JSON text (never NULL). */
  raw: (sql: string): JsonValueSql => `(${sql})` as JsonValueSql,
};

const MEMBER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The JSON text of an object whose members are `members`, in that order, written as
 * `JSON.stringify` writes it (no whitespace): what a response sends without Node parsing and
 * re-serialising it. `json_build_object` puts spaces around every `:` and `,`, so it cannot be
 * sent as is.
 */
export function jsonObjectText(members: Record<string, JsonValueSql>): string {
  const parts = Object.entries(members).map(([name, value], i) => {
    if (!MEMBER_NAME.test(name)) throw new Error(`jsonObjectText: member name ${name}`);
    return `'${i === 0 ? '{' : ','}"${name}":' || ${value}`;
  });
  if (parts.length === 0) return `'{}'`;
  return `(${parts.join(' || ')} || '}')`;
}
