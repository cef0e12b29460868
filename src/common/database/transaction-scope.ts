import type { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientBase as PgClient } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { committed, rollback } from './transaction-connection.js';

/**
 * The transaction TenantTransactions carries in AsyncLocalStorage, the rules every run of it
 * checks, and the run itself: the work, then COMMIT (or the one its last statement pipelined), or
 * ROLLBACK on failure, with TypeORM's view of the connection made only if the work asks for it.
 */

export const isTenantId = (tenantId: number): boolean =>
  Number.isSafeInteger(tenantId) && tenantId >= 1;
export const invalidTenant = (): Error => new Error('tenant transaction without a valid tenant id');
export const acrossJoined = (): Error =>
  new Error('a cross-tenant read runs alone: nothing joins it and it joins nothing');

/** Times one transaction may be reopened because an opening check found it stale (bursts). */
export const MAX_REOPEN = 3;

export interface TransactionScope {
  /** TypeORM's manager bound to the transaction, created on first use. */
  manager: () => EntityManager;
  /** The connection it runs on. */
  client: PgClient;
  /** null: the owner role (system work), which sees every tenant. */
  tenantId: number | null;
  /** True in a `run` that joined a transaction opened further out: it cannot end it. */
  joined: boolean;
  /** A read-only transaction as PLATFORM_ROLE (`readAcrossTenants`): nothing may join it. */
  across?: boolean;
  /**
   * Shared by the owner and every joined run: the COMMIT `queryAndCommit` sent, if any, and the
   * channels to announce once the transaction has committed (none if it rolls back).
   */
  end: { commit?: Promise<unknown>; announce: Set<string> };
}

export function assertOpen(scope: TransactionScope): void {
  if (scope.end.commit) throw new Error('the transaction has committed: no statement may follow');
}

/**
 * Runs `work` in the transaction open on `client` (the opening sent), as the current scope of
 * `storage`, and ends it; `release` gets the connection back (broken when the rollback failed).
 */
export async function runInScope<T>(
  storage: AsyncLocalStorage<TransactionScope>,
  dataSource: DataSource,
  client: PgClient,
  release: (broken?: unknown) => void,
  tenantId: number | null,
  work: () => Promise<T>,
  across: boolean,
  announce: (channels: Iterable<string>) => void,
): Promise<T> {
  // TypeORM's view of this connection, made only when a query goes through it (the hot paths
  // send SQL on the connection itself and never pay for a query runner and entity manager)
  let runner: QueryRunner | undefined;
  const manager = (): EntityManager => {
    if (!runner) {
      runner = dataSource.createQueryRunner();
      // writable on TypeORM's query runners (the interface declares them read-only): the
      // connection is ours, and a transaction is open, so save() and friends do not start one
      Object.assign(runner, { databaseConnection: client, isTransactionActive: true });
    }
    return runner.manager;
  };
  let broken: unknown;
  const end: TransactionScope['end'] = { announce: new Set() };
  try {
    const scope = { manager, client, tenantId, joined: false, end, across };
    const result = await storage.run(scope, work);
    await committed(end.commit ?? client.query('COMMIT'));
    announce(end.announce);
    return result;
  } catch (err) {
    // a pipelined COMMIT is answered before the ROLLBACK below is: let it settle first
    await end.commit?.catch(() => undefined);
    broken = await rollback(client);
    throw err;
  } finally {
    if (runner) {
      Object.assign(runner, { isTransactionActive: false });
      await runner.release();
    }
    release(broken);
  }
}
