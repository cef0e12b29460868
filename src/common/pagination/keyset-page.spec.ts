import { describe, expect, it } from '@jest/globals';
import { sql } from '../database/statement.js';
import { afterKey, childPage, childPageSql, keysetPage, keysetPageSql } from './keyset-page.js';

const table = {
  table: 'project_files',
  alias: 'f',
  parentColumn: 'project_id',
  columns: 'f.id, f.name',
  item: `'{}'`,
};

describe('keyset pages as statements', () => {
  it('binds every value, in order, and writes the text the transitional wrapper writes', () => {
    const page = childPage({
      ...table,
      parentFound: sql`EXISTS (SELECT 1 FROM projects WHERE tenant_id = ${7} AND id = ${9})`,
      tenantId: 7,
      parentId: 9,
      after: 40,
      limit: 20,
    });
    expect(page.values).toEqual([7, 9, 20, 20, 20, 7, 9, 40, 20]);
    // the wrapper's $1..$4 repeat; the statement numbers each use: the same text once numbered
    const legacy = childPageSql({
      ...table,
      parentFound: 'EXISTS (SELECT 1 FROM projects WHERE tenant_id = $1 AND id = $2)',
    });
    const numbered = (text: string) => text.replace(/\$\d+/g, '$n');
    expect(numbered(page.text)).toBe(numbered(legacy));
    expect(page.text).toContain('f.id > $8::bigint');
  });

  it('walks descending from a key before every row', () => {
    const rows = sql`SELECT d.id AS k FROM deliveries d WHERE ${afterKey('d.id', 'DESC', 5)}`;
    const page = keysetPage({ rows, item: `'{}'`, order: 'DESC', limit: 3 });
    expect(page.text).toContain('min(r.k)');
    expect(page.text).toContain('d.id < $4::bigint');
    expect(page.values).toEqual([3, 3, 3, 5]);
    const legacy = keysetPageSql({
      rows: 'SELECT d.id AS k FROM deliveries d WHERE d.id < $1::bigint',
      item: `'{}'`,
      order: 'DESC',
      limit: '$2::int',
    });
    expect(legacy).toContain('count(*) > $2::int AS more');
  });
});
