import { describe, expect, it } from '@jest/globals';
import { sql } from '../database/statement.js';
import { afterKey, childPage, keysetPage } from './keyset-page.js';

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
    SELECT '[' || COALESCE(string_agg('{}', ',' ORDER BY r.k ASC)
                             FILTER (WHERE r._n <= $n::int), '') || ']' AS data,
           max(r.k) FILTER (WHERE r._n <= $n::int) AS last_key,
           count(*) > $n::int AS more
      FROM (SELECT r.*, row_number() OVER (ORDER BY r.k ASC) AS _n FROM (SELECT f.id AS k, f.id, f.name
               FROM project_files f
              WHERE f.tenant_id = $n AND f.project_id = $n
                AND f.id > $n::bigint
              ORDER BY f.id LIMIT $n::int + 1) r) r) page`;

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
    expect(page.values).toEqual([7, 9, 20, 20, 20, 7, 9, 40, 20]);
    // the text the SQL-text builder wrote before statements (its $1..$4 repeated; each use is
    // numbered now): the same plan, so the page keeps its measured cost
    const numbered = (text: string) => text.replace(/\$\d+/g, '$n');
    expect(numbered(page.text)).toBe(CHILD_PAGE_TEXT);
    expect(page.text).toContain('f.id > $8::bigint');
  });

  it('walks descending from a key before every row', () => {
    const rows = sql`SELECT d.id AS k FROM deliveries d WHERE ${afterKey('d.id', 'DESC', 5)}`;
    const page = keysetPage({ rows, item: `'{}'`, order: 'DESC', limit: 3 });
    expect(page.text).toContain('min(r.k)');
    expect(page.text).toContain('d.id < $4::bigint');
    expect(page.values).toEqual([3, 3, 3, 5]);
    expect(page.text).toContain('count(*) > $3::int AS more');
  });
});
