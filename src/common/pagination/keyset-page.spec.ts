import { describe, expect, it } from '@jest/globals';
import { sql } from '../database/statement.js';
import { HeldText, JsonText } from '../http/json-text.js';
import {
  afterKey,
  childPage,
  cursorPageOf,
  holdPageParts,
  type KeysetPageRow,
  keysetPage,
} from './keyset-page.js';

const table = {
  table: 'project_files',
  alias: 'f',
  parentColumn: 'project_id',
  columns: 'f.id, f.name',
  item: `'{}'`,
};

const CHILD_PAGE_TEXT = `
  SELECT EXISTS (SELECT 1 FROM projects WHERE tenant_id = $n AND id = $n) AS found, page.*
    FROM (
    SELECT string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 0) AS data_0,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 1) AS data_1,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 2) AS data_2,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 3) AS data_3,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 4) AS data_4,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 5) AS data_5,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 6) AS data_6,
           string_agg(r._item, ',' ORDER BY r._parent ASC, r.k ASC) FILTER (WHERE r._part = 7) AS data_7,
           max(r.k) FILTER (WHERE r._part IS NOT NULL) AS last_key,
           count(*) > $n::int AS more
      FROM (SELECT r.*, '{}' AS _item, CASE WHEN row_number() OVER w <= $n::int
                             THEN (row_number() OVER w - 1) / 128 END AS _part
              FROM (SELECT f.project_id AS _parent, f.id AS k, f.id, f.name
               FROM project_files f
              WHERE f.tenant_id = $n
                AND f.project_id >= $n AND f.project_id <= $n
                AND (f.project_id, f.id) > ($n, $n::bigint)
              ORDER BY f.project_id, f.id LIMIT $n::int + 1) r WINDOW w AS (ORDER BY r._parent ASC, r.k ASC)) r) page`;

describe('keyset pages as statements', () => {
  it('binds every value, in order, and writes the statement the pages were tuned with', () => {
    const page = childPage({
      ...table,
      parentFound: sql`EXISTS (SELECT 1 FROM projects WHERE tenant_id = ${7} AND id = ${9})`,
      tenantId: 7,
      parentId: 9,
      after: 40,
      limit: 20,
    });
    expect(page.values).toEqual([7, 9, 20, 20, 7, 9, 9, 9, 40, 20]);
    // the statement the page was measured with (bench/README.md, "A 1,000-row page in pieces"):
    // a change to it is a change to the page's cost
    const numbered = (text: string) => text.replace(/\$\d+/g, '$n');
    expect(numbered(page.text)).toBe(CHILD_PAGE_TEXT);
    expect(page.text).toContain('(f.project_id, f.id) > ($8, $9::bigint)');
  });

  it('walks descending from a key before every row', () => {
    const rows = sql`SELECT d.id AS k FROM deliveries d WHERE ${afterKey('d.id', 'DESC', 5)}`;
    const page = keysetPage({ rows, item: `'{}'`, order: 'DESC', limit: 3 });
    expect(page.text).toContain('min(r.k)');
    expect(page.text).toContain('d.id < $3::bigint');
    expect(page.values).toEqual([3, 3, 5]);
    expect(page.text).toContain('count(*) > $1::int AS more');
    expect(page.text).toContain('ORDER BY r.k DESC) FILTER (WHERE r._part = 7) AS data_7');
  });

  it('writes the item once, whatever it is, so that PostgreSQL plans it once', () => {
    const rows = sql`SELECT d.id AS k, d.id FROM deliveries d`;
    const item = `'{"deliveryId":' || r.id || '}'`;
    for (const order of ['ASC', 'DESC'] as const) {
      const text = keysetPage({ rows, item, order, limit: 50 }).text;
      expect(text.split(item)).toHaveLength(2);
      expect(text.match(/string_agg\(r\._item, /g)).toHaveLength(8);
    }
  });

  it("holds a page's part columns, in place, and leaves every other column as the driver gave it", () => {
    const row: Record<string, unknown> = {
      found: true,
      data_0: '{"id":1}',
      data_1: '{"id":2}',
      data_2: null,
      last_key: '2',
      more: false,
      data: 'not a part',
      data_8: 'not a part either',
    };
    holdPageParts([row]);
    expect(row.data_0).toBeInstanceOf(HeldText);
    expect(row.data_1).toBeInstanceOf(HeldText);
    expect(row).toMatchObject({ found: true, data_2: null, last_key: '2', more: false });
    expect(row.data).toBe('not a part');
    expect(row.data_8).toBe('not a part either');
    const body: JsonText = cursorPageOf(row as KeysetPageRow<unknown>, {
      tenantId: 1,
      list: 'x',
      scope: [1],
    });
    expect(body.text).toBe('{"data":[{"id":1},{"id":2}],"next_cursor":null}');
    body.release();
    expect(() => body.text).toThrow(/released/);
  });
});
