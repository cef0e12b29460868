import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { empty, fragment, join, type Sql, sql } from '../../common/database/statement.js';

/**
 * Tables a reset leaves: `tenants` (ids stay valid, so a suite's audit trail still names them),
 * their entitlement overrides (part of the tenant: a suite that granted one in `beforeAll` keeps
 * it across resets), and `audit_log`, which is append-only for every role by design (a trigger
 * refuses TRUNCATE).
 */
const KEPT = ['tenants', 'tenant_entitlement_overrides', 'audit_log'];

/** What the testing kit's `reset` removes, as the owner role (an administrator path). */
@Injectable()
export class TestingRepository {
  private tables: Promise<string[]> | undefined;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Every table of this schema with a `tenant_id` column but the kept ones, read from the catalog
   * once: a table a later migration adds is emptied too, without a list to keep in step.
   */
  tenantTables(): Promise<string[]> {
    const tables = sql<{ name: string }>`SELECT c.relname AS name
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
       WHERE c.relnamespace = current_schema()::regnamespace
         AND c.relkind IN ('r', 'p')
         AND a.attname = 'tenant_id' AND NOT a.attisdropped
         AND c.relname <> ALL (${KEPT})
       ORDER BY 1`;
    return (this.tables ??= this.db
      .query(tables.text, tables.values)
      .then((rows: Array<{ name: string }>) => rows.map((r) => r.name)));
  }

  /**
   * The rows of `tenantIds` (or of every tenant) in every table, as ONE statement: the foreign
   * keys are checked at its end, so the order of the deletes does not matter (documents and their
   * versions refer to each other). `project_counts` is left to the trigger on `projects`, which
   * brings it to zero. A DELETE, not a TRUNCATE: on a test's few rows it took 36 ms where a
   * TRUNCATE of the same tables took 130 to 230 ms (new files for each table).
   *
   * The tables are locked against writers first (readers go on): a delivery attempt recorded by
   * the worker after the DELETE's snapshot would otherwise reference a delivery it removed. Should
   * that lock meet the worker's in a deadlock, PostgreSQL ends one side and the reset runs again.
   */
  async deleteTenantsData(
    tables: readonly string[],
    tenantIds: readonly number[] | 'all',
  ): Promise<void> {
    const where: Sql =
      tenantIds === 'all' ? empty : sql` WHERE tenant_id = ANY (${tenantIds}::int[])`;
    const deletes = tables
      .filter((t) => t !== COUNTED_BY_TRIGGER)
      .map((t, i) => sql`${fragment(`d${i}`)} AS (DELETE FROM ${identifier(t)}${where})`);
    const lock = sql`LOCK TABLE ${join(tables.map(identifier), ', ')} IN SHARE ROW EXCLUSIVE MODE`;
    const reset = sql`WITH ${join(deletes, ', ')} SELECT 1`;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.transaction(async (m) => {
          await m.query(lock.text, lock.values);
          await m.query(reset.text, reset.values);
        });
        return;
      } catch (err) {
        const { code, driverError } = err as { code?: string; driverError?: { code?: string } };
        if (attempt >= MAX_ATTEMPTS || (driverError?.code ?? code) !== DEADLOCK) throw err;
      }
    }
  }
}

const DEADLOCK = '40P01';
const MAX_ATTEMPTS = 5;
const COUNTED_BY_TRIGGER = 'project_counts';

/** A table name read from the catalog, quoted. */
function identifier(name: string): Sql {
  return fragment(`"${name.replaceAll('"', '""')}"`);
}
