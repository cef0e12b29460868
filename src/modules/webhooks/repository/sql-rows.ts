/** TypeORM answers an UPDATE … RETURNING with `[rows, affected]`, anything else with the rows. */
export function updatedRows<T>(raw: unknown): T[] {
  if (
    Array.isArray(raw) &&
    raw.length === 2 &&
    Array.isArray(raw[0]) &&
    typeof raw[1] === 'number'
  ) {
    return raw[0] as T[];
  }
  return raw as T[];
}
