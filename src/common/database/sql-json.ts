/**
 * A timestamp as JSON text exactly as `Date.prototype.toISOString` writes it (UTC, milliseconds),
 * for read paths that let PostgreSQL build the response JSON in the same statement.
 */
export const isoTimestamp = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
