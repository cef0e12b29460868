import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ClientBase as PgClient } from 'pg';
import type {
  DataSource,
  EntityManager,
  EntityTarget,
  ObjectLiteral,
  QueryRunner,
  Repository,
} from 'typeorm';
import { APP_ROLE } from '../../../migrations/1764000000000-initial-schema.js';
import { CREDENTIAL_GENERATION } from '../../../migrations/1764000300000-credential-change-notify.js';
import { verifiedCredential } from './credential-freshness.js';

/** Re-verifications one request may need before its transaction settles (changes in a burst). */
const MAX_REVERIFY = 3;

/** Opens a tenant transaction; answers one row with the current credential generation. */
const openTenantTransaction = (tenantId: number, readOnly = false): string =>
  `START TRANSACTION${readOnly ? ' READ ONLY' : ''}; SET LOCAL ROLE ${APP_ROLE}; ` +
  `SELECT set_config('app.tenant_id', '${tenantId}', true), ${CREDENTIAL_GENERATION} AS generation`;

/**
 * True when the request's credential was verified before the newest committed credential change:
 * it must be verified again before this transaction may touch data.
 */
function isStale(generation: unknown): boolean {
  const verified = verifiedCredential();
  return (
    verified !== undefined && generation !== undefined && Number(generation) > verified.generation
  );
}

/** Verifies the request's credential again; throws the guard's 401/403 if it no longer passes. */
async function reverify(generation: unknown): Promise<void> {
  const verified = verifiedCredential();
  if (!verified) return;
  // never go backwards: a look-up cannot answer an older generation than the one just read
  verified.generation = Math.max(await verified.reverify(), Number(generation));
}

interface PgResult {
  rows: Array<Record<string, unknown>>;
}

type Rows = Array<Record<string, unknown>>;

/**
 * Reads sent in the round trip that opens a tenant transaction (`TenantTransactions.runOpening`),
 * so a write path's first look at its rows costs no round trip of its own. Each statement runs
 * in order with a fresh snapshot of its own (read committed), as separate queries would. The
 * simple query protocol has no bind parameters: `$n` may stand for integers only, which are
 * validated and inlined.
 */
export interface OpeningRead<T> {
  statements: readonly string[];
  integers: readonly number[];
  /** Their rows, one array per statement in order, turned into the value the work receives. */
  read(results: readonly Rows[]): T;
}

/** Two opening reads as one, in order. */
export function openingReads<A, B>(a: OpeningRead<A>, b: OpeningRead<B>): OpeningRead<[A, B]> {
  const shift = a.integers.length;
  const renumber = (sql: string) =>
    sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
  return {
    statements: [...a.statements, ...b.statements.map(renumber)],
    integers: [...a.integers, ...b.integers],
    read: (results) => [
      a.read(results.slice(0, a.statements.length)),
      b.read(results.slice(a.statements.length)),
    ],
  };
}

/** `$n` → the n-th integer, validated: the only values ever inlined into SQL text. */
function inlineIntegers(sql: string, integers: readonly number[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = integers[Number(n) - 1];
    if (value === undefined || !Number.isSafeInteger(value)) {
      throw new Error(`inlined parameter $${n} must be an integer`);
    }
    return String(value);
  });
}

interface TransactionScope {
  manager: EntityManager;
  /** null: the owner role (system work), which sees every tenant. */
  tenantId: number | null;
}

/**
 * The only way tenant data is touched. Opens (or joins) a transaction, drops to the application
 * role, which row-level security applies to, and pins `app.tenant_id`, so even a query that forgets
 * its tenant filter sees and writes only this tenant's rows. Queries still filter on tenant: the
 * policy is the second wall, not the only one.
 *
 * The transaction is carried in AsyncLocalStorage, so services called inside `run` share it
 * without an EntityManager threaded through every signature. It is opened with one round trip
 * (`START TRANSACTION; SET LOCAL ROLE …; set_config(…)`) rather than TypeORM's separate
 * `START TRANSACTION`: on the read path every round trip is a large share of the request.
 *
 * That same round trip reads `credential_generation`: if the request's credential was verified
 * before a credential change that has committed since (possible only in the milliseconds before
 * the change's notification reaches this process's cache), the transaction is rolled back before
 * any work, the credential is verified again from the database, and the transaction reopened.
 */
@Injectable()
export class TenantTransactions {
  private readonly scope = new AsyncLocalStorage<TransactionScope>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(tenantId: number, work: () => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
      return Promise.reject(new Error('tenant transaction without a valid tenant id'));
    }
    const current = this.scope.getStore();
    if (current) {
      if (current.tenantId !== null && current.tenantId !== tenantId) {
        return Promise.reject(new Error('a tenant transaction cannot join another tenant'));
      }
      return work();
    }
    // the id is a validated integer, so inlining it is safe
    return this.transaction(openTenantTransaction(tenantId), tenantId, () => work());
  }

  /**
   * `run`, with `opening`'s statements sent in the round trip that opens the transaction; `work`
   * receives what they read. Inside a transaction already, the statements run there, one by one.
   */
  async runOpening<R, T>(
    tenantId: number,
    opening: OpeningRead<R>,
    work: (read: R) => Promise<T>,
  ): Promise<T> {
    const statements = opening.statements.map((sql) => inlineIntegers(sql, opening.integers));
    if (this.scope.getStore()) {
      return this.run(tenantId, async () => {
        const results: Rows[] = [];
        for (const sql of statements) results.push(await this.manager.query(sql));
        return work(opening.read(results));
      });
    }
    if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
      throw new Error('tenant transaction without a valid tenant id');
    }
    return this.transaction(
      [openTenantTransaction(tenantId), ...statements].join('; '),
      tenantId,
      // the first three results open the transaction
      (opened) => work(opening.read(opened.slice(3).map((r) => r.rows))),
    );
  }

  /**
   * One read-only statement in a tenant transaction of its own, sent as ONE round trip
   * (`START …; SET LOCAL ROLE …; set_config(…); <statement>; COMMIT`). The price: the simple
   * query protocol has no bind parameters, so `$n` placeholders may only stand for integers,
   * which are validated and inlined. The hot read paths use it; everything else uses `run`.
   */
  async readOnce<R>(tenantId: number, sql: string, integers: readonly number[]): Promise<R[]> {
    if (this.scope.getStore())
      return this.run(tenantId, () => this.manager.query(sql, [...integers]));
    if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
      throw new Error('tenant transaction without a valid tenant id');
    }
    const statement = inlineIntegers(sql, integers);
    for (let attempt = 1; ; attempt++) {
      const results = await this.readOnceRaw(
        `${openTenantTransaction(tenantId, true)}; ${statement}; COMMIT`,
      );
      // the driver answers one result per statement: the third opens, the fourth is ours
      const generation = results[2]?.rows[0]?.['generation'];
      if (attempt > MAX_REVERIFY || !isStale(generation)) return (results[3]?.rows ?? []) as R[];
      await reverify(generation);
    }
  }

  private async readOnceRaw(sql: string): Promise<PgResult[]> {
    const [client, release] = await (
      this.dataSource.driver as unknown as {
        obtainMasterConnection(): Promise<[PgClient, (broken?: unknown) => void]>;
      }
    ).obtainMasterConnection();
    let broken: unknown;
    try {
      return (await client.query(sql)) as unknown as PgResult[];
    } catch (err) {
      // a failed statement leaves the transaction open and aborted on this connection; a
      // connection that cannot even roll back is discarded rather than returned to the pool
      await client.query('ROLLBACK').catch(() => {
        broken = err;
      });
      throw err;
    } finally {
      release(broken);
    }
  }

  /** Runs work as the owner role, across tenants: workers, sweepers and the admin CLI only. */
  runAsSystem<T>(work: () => Promise<T>): Promise<T> {
    if (this.scope.getStore()) return work();
    return this.transaction('START TRANSACTION', null, () => work());
  }

  /** The entity manager of the current transaction (or a plain one outside of any). */
  get manager(): EntityManager {
    return this.scope.getStore()?.manager ?? this.dataSource.manager;
  }

  repo<E extends ObjectLiteral>(entity: EntityTarget<E>): Repository<E> {
    return this.manager.getRepository(entity);
  }

  private async transaction<T>(
    begin: string,
    tenantId: number | null,
    work: (opened: PgResult[]) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const runner = this.dataSource.createQueryRunner();
      const client = (await runner.connect()) as PgClient;
      let opened: PgResult[];
      try {
        opened = (await client.query(begin)) as unknown as PgResult[];
      } catch (err) {
        await runner.query('ROLLBACK').catch(() => undefined);
        await runner.release();
        throw err;
      }
      const generation = tenantId === null ? undefined : opened[2]?.rows[0]?.['generation'];
      if (attempt <= MAX_REVERIFY && isStale(generation)) {
        // nothing done yet; the connection goes back first, since verifying needs one of its own
        await runner.query('ROLLBACK').catch(() => undefined);
        await runner.release();
        await reverify(generation);
        continue;
      }
      return this.inTransaction(runner, tenantId, () => work(opened));
    }
  }

  private async inTransaction<T>(
    runner: QueryRunner,
    tenantId: number | null,
    work: () => Promise<T>,
  ): Promise<T> {
    // writable on TypeORM's query runners; the QueryRunner interface only declares it read-only
    const state = runner as unknown as { isTransactionActive: boolean };
    try {
      // tells TypeORM a transaction is open, so save() and friends do not start their own
      state.isTransactionActive = true;
      try {
        const result = await this.scope.run({ manager: runner.manager, tenantId }, work);
        await runner.query('COMMIT');
        return result;
      } catch (err) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        state.isTransactionActive = false;
      }
    } finally {
      await runner.release();
    }
  }
}
