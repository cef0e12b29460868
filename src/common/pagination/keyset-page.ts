import { fragment, type Sql, sql } from '../database/statement.js';
import { JsonText } from '../http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from './cursor.js';

/**
 * One page of a keyset-paged list as ONE statement that answers one row:
 * `data` (the page's items as the text of a JSON array built by PostgreSQL, `[]` when empty),
 * `last_key` (the sort key of its last item) and `more` (whether a row follows it). No entity is
 * hydrated, no row object is built in Node and the page's JSON is neither parsed nor serialised
 * there: the text goes into the response as it is (`JsonText`).
 *
 * `rows` is a SELECT of at most `limit + 1` rows (the extra row only tells whether there is a
 * next page), already filtered past the cursor (`keysetAfter`) and ordered, with the sort key as
 * column `k`; `item` is the JSON text of one row over alias `r`, as `jsonObjectText` writes it.
 */
export function keysetPage(page: {
  rows: Sql;
  item: Sql;
  order: 'ASC' | 'DESC';
  /** The page size: a parameter (`sql\`${limit}::int\``) or an integer literal. */
  limit: Sql;
}): Sql {
  const { rows, item, limit } = page;
  const order = fragment(page.order);
  const last = fragment(page.order === 'ASC' ? 'max' : 'min');
  return sql`
    SELECT '[' || COALESCE(string_agg(${item}, ',' ORDER BY r.k ${order})
                             FILTER (WHERE r._n <= ${limit}), '') || ']' AS data,
           ${last}(r.k) FILTER (WHERE r._n <= ${limit}) AS last_key,
           count(*) > ${limit} AS more
      FROM (SELECT r.*, row_number() OVER (ORDER BY r.k ${order}) AS _n FROM (${rows}) r) r`;
}

/** `keysetPage` as SQL text, for callers still writing `$n` placeholders themselves. */
export function keysetPageSql(page: {
  rows: string;
  item: string;
  order: 'ASC' | 'DESC';
  /** A placeholder or an integer literal: the page size. */
  limit: string;
}): string {
  const { rows, item, order, limit } = page;
  return keysetPage({ rows: fragment(rows), item: fragment(item), order, limit: fragment(limit) })
    .text;
}

/**
 * A page of one parent's children (a project's documents, a document's candidates), ascending by
 * id, with `found`: whether the parent is the tenant's (`parentFound`, a boolean SQL expression),
 * in one statement. $1 tenant, $2 parent, $3 the id after which the page starts, $4 limit.
 * `columns` are selected over `alias`; `item` is the JSON text of one row over alias `r`.
 */
export function childPageSql(page: {
  parentFound: string;
  table: string;
  alias: string;
  parentColumn: string;
  columns: string;
  item: string;
}): string {
  const { parentFound, table, alias: a, parentColumn, columns, item } = page;
  return `
  SELECT ${parentFound} AS found, page.*
    FROM (${keysetPageSql({
      rows: `SELECT ${a}.id AS k, ${columns}
               FROM ${table} ${a}
              WHERE ${a}.tenant_id = $1 AND ${a}.${parentColumn} = $2
                AND ${keysetAfter(`${a}.id`, 'ASC', '$3::bigint')}
              ORDER BY ${a}.id LIMIT $4::int + 1`,
      item,
      order: 'ASC',
      limit: '$4::int',
    })}) page`;
}

/**
 * The keyset condition of a walk in `order`: rows strictly after the cursor's key. Without a
 * cursor, pass `firstKey(order)`, a key before every row.
 */
export function keysetAfter(key: string, order: 'ASC' | 'DESC', after: string): string {
  return keysetAfterKey(fragment(key), order, fragment(after)).text;
}

/** `keysetAfter` as a statement fragment: `after` is a parameter (`sql\`${key}::bigint\``). */
export function keysetAfterKey(key: Sql, order: 'ASC' | 'DESC', after: Sql): Sql {
  return sql`${key} ${fragment(order === 'ASC' ? '>' : '<')} ${after}`;
}

/** A key before every row in `order` (keys are positive integers). */
export const firstKey = (order: 'ASC' | 'DESC'): number =>
  order === 'ASC' ? 0 : Number.MAX_SAFE_INTEGER;

/**
 * What `keysetPageSql` answers, as the driver returns it (bigint keys arrive as strings). `T` is
 * the type of an item `data` encodes.
 */
export interface KeysetPageRow<T> {
  /** JSON text of a `T[]`. */
  data: string & { readonly __items?: T };
  last_key: number | string | null;
  more: boolean;
}

/** The `next_cursor` of the page `row` is: null on the last page. */
export function nextCursorOf(
  row: KeysetPageRow<unknown> | undefined,
  identity: ListIdentity,
): string | null {
  const more = row?.more === true && row.last_key !== null;
  return more ? Cursor.encode(identity, [Number(row.last_key)]) : null;
}

/**
 * `{ data, next_cursor }` from the row `keysetPageSql` answered, as the JSON text of the response
 * (the page's own text inside, untouched).
 */
export function cursorPageOf<T>(
  row: KeysetPageRow<T> | undefined,
  identity: ListIdentity,
): JsonText<CursorPage<T>> {
  const next = JSON.stringify(nextCursorOf(row, identity));
  return new JsonText(`{"data":${row?.data ?? '[]'},"next_cursor":${next}}`);
}
