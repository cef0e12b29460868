import { fragment, type Sql, sql } from '../database/statement.js';
import { type Held, type HeldText, holdColumns, JsonText } from '../http/json-text.js';
import { Cursor, type CursorPage, type ListIdentity } from './cursor.js';
import { MAX_PAGE_LIMIT } from './page-query.js';

/** The direction of a keyset walk. */
export type KeysetOrder = 'ASC' | 'DESC';

/**
 * One page of a keyset-paged list as ONE statement that answers one row:
 * `data_0` … `data_7` (the page's items, PAGE_PART_ITEMS to a column, as JSON text built by
 * PostgreSQL and joined by commas; NULL past the last item), `last_key` (the sort key of its last
 * item) and `more` (whether a row follows it). No entity is hydrated, no row object is built in
 * Node and the page's JSON is neither parsed nor serialised there: the texts go into the response
 * as they are (`JsonText`), in pieces, so that neither PostgreSQL nor Node holds the whole page as
 * one value (bench/README.md, "A 1,000-row page in pieces").
 *
 * `rows` is a SELECT of at most `limit + 1` rows (the extra row only tells whether there is a
 * next page), already filtered past the cursor (`afterKey`) and ordered, with the sort key as
 * column `k`; `item` is the JSON text of one row over alias `r`, as `jsonObjectText` writes it.
 */
export function keysetPage(page: {
  rows: Sql;
  item: string;
  order: KeysetOrder;
  /** The page size. */
  limit: number;
}): Sql {
  return pageOf({ ...page, limit: sql`${page.limit}::int` });
}

/** The children a child page lists: `columns` over `alias`; `item`, one as JSON over alias `r`. */
export interface ChildTable {
  table: string;
  alias: string;
  parentColumn: string;
  columns: string;
  item: string;
}

/**
 * A page of one parent's children (a project's documents, a document's candidates), ascending by
 * id, with `found`: whether the parent is the tenant's (`parentFound`, a boolean SQL expression),
 * in one statement: the page of `parentId`'s children of tenant `tenantId` after the id `after`.
 */
export function childPage(
  page: ChildTable & {
    parentFound: Sql;
    tenantId: number;
    parentId: number;
    after: number;
    limit: number;
  },
): Sql {
  const { tenantId, parentId, after, limit } = page;
  return childPageOf({
    ...page,
    tenant: sql`${tenantId}`,
    parent: sql`${parentId}`,
    after: sql`${after}::bigint`,
    limit: sql`${limit}::int`,
  });
}

/**
 * The keyset condition of a walk in `order`: rows whose `key` (a column of our own SQL) is
 * strictly after the cursor's key `after`. Without a cursor, pass `firstKey(order)`, a key before
 * every row.
 */
export function afterKey(key: string, order: KeysetOrder, after: number): Sql {
  return afterOf(key, order, sql`${after}::bigint`);
}

/**
 * `sortKey`: the columns of `rows` it is ordered by, in order, ending with `k` (default: `k`
 * alone); the window and the parts follow the same order, so that PostgreSQL sorts nothing again.
 */
function pageOf(page: {
  rows: Sql;
  item: string;
  order: KeysetOrder;
  limit: Sql;
  sortKey?: readonly string[];
}): Sql {
  const { rows, limit } = page;
  const by = (page.sortKey ?? ['k']).map((column) => `r.${column} ${page.order}`).join(', ');
  const order = fragment(by);
  const last = fragment(page.order === 'ASC' ? 'max' : 'min');
  return sql`
    SELECT ${fragment(PARTS.map((i) => partColumn(by, i)).join(',\n           '))},
           ${last}(r.k) FILTER (WHERE r._part IS NOT NULL) AS last_key,
           count(*) > ${limit} AS more
      FROM (SELECT r.*, ${fragment(page.item)} AS _item, CASE WHEN row_number() OVER w <= ${limit}
                             THEN (row_number() OVER w - 1) / ${fragment(String(PAGE_PART_ITEMS))} END AS _part
              FROM (${rows}) r WINDOW w AS (ORDER BY ${order})) r`;
}

/**
 * Part `i` of a page: its items' JSON texts in order, joined by commas (NULL when it has none).
 * The item is written once, in the subquery (`_item`), not once per part: PostgreSQL plans every
 * copy of an expression, and a page whose item is built per request (deliveries) was planned per
 * request (bench/README.md, "The item written once").
 */
function partColumn(by: string, i: number): string {
  return `string_agg(r._item, ',' ORDER BY ${by}) FILTER (WHERE r._part = ${i}) AS data_${i}`;
}

function childPageOf(
  page: ChildTable & { parentFound: Sql; tenant: Sql; parent: Sql; after: Sql; limit: Sql },
): Sql {
  const { parentFound, tenant, parent, limit, item } = page;
  const a = page.alias;
  const [table, columns, parentColumn] = [page.table, page.columns, page.parentColumn].map(
    fragment,
  );
  const alias = fragment(a);
  return sql`
  SELECT ${parentFound} AS found, page.*
    FROM (${pageOf({
      // The parent's children as a range of the (parent, id) index, in its order. The parent is
      // bounded from both sides, not compared by equality: then only that index gives the order
      // (no plan walks the primary key filtering by parent, which made one parent's page walk
      // through another's rows), and PostgreSQL estimates the range small enough to keep one
      // generic plan (bench/README.md, "Child pages on their parent's index").
      rows: sql`SELECT ${alias}.${parentColumn} AS _parent, ${alias}.id AS k, ${columns}
               FROM ${table} ${alias}
              WHERE ${alias}.tenant_id = ${tenant}
                AND ${alias}.${parentColumn} >= ${parent} AND ${alias}.${parentColumn} <= ${parent}
                AND (${alias}.${parentColumn}, ${alias}.id) > (${parent}, ${page.after})
              ORDER BY ${alias}.${parentColumn}, ${alias}.id LIMIT ${limit} + 1`,
      item,
      order: 'ASC',
      limit,
      sortKey: ['_parent', 'k'],
    })}) page`;
}

function afterOf(key: string, order: KeysetOrder, after: Sql): Sql {
  return sql`${fragment(key)} ${fragment(order === 'ASC' ? '>' : '<')} ${after}`;
}

/** A key before every row in `order` (keys are positive integers). */
export const firstKey = (order: KeysetOrder): number =>
  order === 'ASC' ? 0 : Number.MAX_SAFE_INTEGER;

/**
 * Items per text column of a page. A column's text stays far under 128 KiB (the size from which
 * V8 makes a string in its large-object space, and glibc's default for serving an allocation by
 * its own mmap) for items of up to ~500 bytes; a bigger part is only slower, never wrong.
 */
export const PAGE_PART_ITEMS = 128;

/** The part columns of a page: as many as the largest page needs (checked below). */
const PARTS = [0, 1, 2, 3, 4, 5, 6, 7] as const;
if (PARTS.length * PAGE_PART_ITEMS < MAX_PAGE_LIMIT) {
  throw new Error('keyset-page: the part columns cannot hold a page of MAX_PAGE_LIMIT items');
}

/** The name of a page's part column. */
export type PartName = `data_${(typeof PARTS)[number]}`;

const PART_NAMES = PARTS.map((i): PartName => `data_${i}`);

/** The part columns of the page `alias`, for a statement that selects them by name. */
export const pageParts = (alias: string): Sql =>
  fragment(PART_NAMES.map((name) => `${alias}.${name}`).join(', '));

/**
 * A page's part columns as the driver answers them: `data_0` … each the JSON text of some of its
 * items (`T`), or null.
 */
export type PagePartTexts<T> = Partial<
  Record<PartName, (string & { readonly __items?: T }) | null>
>;

/** A page's part columns once held (`holdPageParts`), from the driver's answer until the response is sent. */
export type PagePartColumns<T> = Held<PagePartTexts<T>, PartName>;

/**
 * Puts the part columns of the rows the driver answered (strings) in `HeldText`s, in place, before
 * anything older than the rows refers to them; other columns are left as they are.
 */
export const holdPageParts = holdColumns(PART_NAMES);

/**
 * The row of a `keysetPage` statement, as the driver returns it (bigint keys arrive as strings).
 * `T` is the type of an item the parts encode.
 */
export type KeysetPageText<T> = PagePartTexts<T> & {
  last_key: number | string | null;
  more: boolean;
};

/** A page statement's row `R` as a page read answers it (`PageReads`): its parts held. */
export type PageRow<R> = Held<R, PartName>;

/** A `keysetPage` row as a page read answers it. */
export type KeysetPageRow<T> = PageRow<KeysetPageText<T>>;

/** The row of a page of one parent's children (`childPage`): the page, and `found`. */
export type ChildPageText<T> = KeysetPageText<T> & { found: boolean };

/** A `ChildPageText` row as a page read answers it. */
export type ChildPageRow<T> = PageRow<ChildPageText<T>>;

/**
 * The JSON array of the page's items, as pieces of text (`[`, the parts with commas between,
 * `]`), for a `JsonText`: `[]` for no row or an empty page.
 */
export function pageArray(row: PagePartColumns<unknown> | undefined): (string | HeldText)[] {
  const pieces: (string | HeldText)[] = ['['];
  for (const i of PARTS) {
    const part = row?.[`data_${i}`];
    if (part == null) continue;
    if (pieces.length > 1) pieces.push(',');
    pieces.push(part);
  }
  pieces.push(']');
  return pieces;
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
 * `{ data, next_cursor }` from the row `keysetPage` answered, as the JSON text of the response
 * (the page's own text inside, untouched).
 */
export function cursorPageOf<T>(
  row: KeysetPageRow<T> | undefined,
  identity: ListIdentity,
): JsonText<CursorPage<T>> {
  const next = JSON.stringify(nextCursorOf(row, identity));
  return new JsonText('{"data":', ...pageArray(row), `,"next_cursor":${next}}`);
}

/**
 * A page of one parent's list, ascending, as the response's JSON text: the key of `cursor` (the
 * first page without one), the page `read` answers after it, and `notFound()` thrown when the
 * parent is not the tenant's (`found`).
 */
export async function childListPage<T>(
  identity: ListIdentity,
  cursor: string | undefined,
  read: (after: number) => Promise<ChildPageRow<T> | undefined>,
  notFound: () => Error,
): Promise<JsonText<CursorPage<T>>> {
  const after = Cursor.decode(identity, cursor)?.[0] ?? firstKey('ASC');
  const row = await read(after);
  if (!row?.found) throw notFound();
  return cursorPageOf(row, identity);
}
