import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { CommitAnnouncer } from './commit-announcer.js';
import type { ColumnsHold, DriverRow, Held } from '../http/json-text.js';
import {
  type OpeningCheck,
  OpeningRoundTrip,
  type Rows,
  type RowsHold,
} from './opening-round-trip.js';
import { driverQuery } from './prepared-statements.js';
import { timeoutStatements } from './statement-timeouts.js';
import type { Batch, Sql, Statement } from './statement.js';
import { pipelines, pooledConnection, type PooledConnection } from './transaction-connection.js';
import { openTransaction } from './transaction-opening.js';
import {
  acrossJoined,
  assertOpen,
  invalidTenant,
  isTenantId,
  MAX_REOPEN,
  runInScope,
  type TransactionScope,
} from './transaction-scope.js';

export type { OpeningCheck };

/**
 * The only way tenant data is touched. Opens (or joins) a transaction, drops to the application
 * role, which row-level security applies to, and pins `app.tenant_id`, so even a query that forgets
 * its tenant filter sees and writes only this tenant's rows. Queries still filter on tenant: the
 * policy is the second wall, not the only one.
 *
 * The transaction is carried in AsyncLocalStorage, so services called inside `run` share it
 * without an EntityManager threaded through every signature. It is opened with one round trip
 * (`START TRANSACTION; SET LOCAL ROLE …; EXECUTE <pin the tenant>`) rather than TypeORM's separate
 * `START TRANSACTION`: on the read path every round trip is a large share of the request. It runs
 * on a pooled pg connection directly; TypeORM's query runner and manager are made for it only when
 * a query goes through them. The statements of the opening round trip are server-side prepared
 * (`PreparedStatements`), and `query` sends named ones: PostgreSQL parses and plans each hot
 * statement once per connection instead of once per request.
 *
 * Modules may add checks to that same round trip (`registerOpeningCheck`; auth's: the credential
 * was verified before a credential change that has committed since): a stale opening is rolled
 * back before any work, refreshed, and the transaction reopened.
 */
@Injectable()
export class TenantTransactions {
  private readonly scope = new AsyncLocalStorage<TransactionScope>();
  /**
   * False behind a transaction pooler: consecutive transactions of one pooled connection may run
   * on different server connections, so nothing is prepared (the pooler would answer "prepared
   * statement … does not exist", or "already exists"), and the timeouts are set in each
   * transaction, since no session of ours outlives it.
   */
  private readonly sessionBound: boolean;
  /** Statements sent right after START TRANSACTION, before anything else. */
  private readonly opening: readonly string[];
  private readonly round: OpeningRoundTrip;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: AppConfig,
    private readonly announcer: CommitAnnouncer,
  ) {
    this.sessionBound = config.DATABASE_POOL_MODE === 'session';
    this.opening = this.sessionBound ? [] : timeoutStatements('LOCAL');
    this.round = new OpeningRoundTrip(this.sessionBound, this.opening);
  }

  /** Adds a check to the round trip that opens each tenant transaction (a module's, at init). */
  registerOpeningCheck(check: OpeningCheck): void {
    this.round.register(check);
  }

  run<T>(tenantId: number, work: () => Promise<T>): Promise<T> {
    if (!isTenantId(tenantId)) return Promise.reject(invalidTenant());
    const current = this.scope.getStore();
    if (current) {
      if (current.across) return Promise.reject(acrossJoined());
      if (current.tenantId !== null && current.tenantId !== tenantId) {
        return Promise.reject(new Error('a tenant transaction cannot join another tenant'));
      }
      return current.joined ? work() : this.scope.run({ ...current, joined: true }, work);
    }
    return this.transaction(tenantId, [], () => work());
  }

  /**
   * `run`, with `opening`'s statements sent in the round trip that opens the transaction; `work`
   * receives what they read. Inside a transaction already, the statements run there, one by one.
   */
  async runOpening<R, T>(
    tenantId: number,
    opening: Batch<R>,
    work: (read: R) => Promise<T>,
  ): Promise<T> {
    const calls = opening.statements;
    if (this.scope.getStore()) {
      return this.run(tenantId, async () => {
        const results: Rows[] = [];
        for (const call of calls) results.push(await this.query(call));
        return work(opening.read(results));
      });
    }
    if (!isTenantId(tenantId)) throw invalidTenant();
    return this.transaction(tenantId, calls, (read) => work(opening.read(read)));
  }

  /** Whether the caller runs inside a transaction of ours (`run`, `runOpening`). */
  insideTransaction(): boolean {
    return Boolean(this.scope.getStore());
  }

  /**
   * One read-only statement in a tenant transaction of its own, sent as ONE round trip
   * (`START …; SET LOCAL ROLE …; EXECUTE <pin tenant>; EXECUTE <statement>; COMMIT`). The price:
   * the simple query protocol has no bind parameters, so `$n` placeholders may only stand for
   * integers, which are validated and inlined. The hot read paths use it; everything else `run`.
   * `hold` holds texts of the statement's rows as the driver answers them, and the rows' type says
   * which (`Held`).
   */
  readOnce<R extends DriverRow<R>>(tenantId: number, statement: Statement<R>): Promise<R[]>;
  readOnce<R extends DriverRow<R>, K extends string>(
    tenantId: number,
    statement: Statement<R>,
    hold: ColumnsHold<K>,
  ): Promise<Held<R, K>[]>;
  async readOnce<R>(tenantId: number, statement: Statement<R>, hold?: RowsHold): Promise<R[]> {
    if (this.insideTransaction()) {
      return this.run(tenantId, async () => {
        const rows = await this.query(statement);
        hold?.(rows as Rows);
        return rows;
      });
    }
    if (!isTenantId(tenantId)) throw invalidTenant();
    for (let attempt = 1; ; attempt++) {
      const connection = await this.connection();
      const [opened, rows] = await this.round.readOnce(connection, tenantId, statement, hold);
      const refreshes = this.round.refreshes(opened);
      if (attempt > MAX_REOPEN || refreshes.length === 0) return rows as R[];
      for (const refresh of refreshes) await refresh();
    }
  }

  /**
   * A parameterised statement in the current transaction, as a named prepared statement of its
   * connection (parsed and planned once per connection, not per request); its rows. For the
   * statements of the hot write paths; outside a transaction of ours, an ordinary query.
   */
  async query<R>(statement: Statement<R>): Promise<R[]> {
    const scope = this.scope.getStore();
    if (!scope) {
      const rows: R[] = await this.dataSource.query(statement.text, statement.values);
      return this.announced(statement, rows);
    }
    assertOpen(scope);
    const result = await scope.client.query(driverQuery(statement, this.sessionBound));
    return this.announced(statement, result.rows as R[], scope.end.announce);
  }

  /**
   * `query` as the LAST statement of the current transaction, with its COMMIT sent right behind it
   * (pipelined: one round trip instead of two). The transaction's result still waits for the
   * COMMIT's answer, so nothing is acknowledged before it is durable; if the statement fails, the
   * server turns the COMMIT into a rollback. Nothing may query after it, and what the work does
   * after it must not fail. In a run that joined an outer transaction, or on a connection without
   * pipelining, it is a plain `query` and the commit comes when the owner's work ends.
   */
  async queryAndCommit<R>(statement: Statement<R>): Promise<R[]> {
    const scope = this.scope.getStore();
    if (!scope || scope.joined || !pipelines(scope.client)) return this.query(statement);
    assertOpen(scope);
    const result = scope.client.query(driverQuery(statement, this.sessionBound));
    const commit = scope.client.query('COMMIT');
    // awaited by runInScope, which also sees its failure; never an unhandled rejection here
    commit.catch(() => undefined);
    scope.end.commit = commit;
    return this.announced(statement, (await result).rows as R[], scope.end.announce);
  }

  /**
   * One statement as the owner role, across tenants, outside any transaction: one round trip
   * instead of a system transaction's three (a decision finding the tenant of a revision id).
   * Inside a transaction of ours it runs there, as `runAsSystem` would.
   */
  async readAsSystem<R>(statement: Statement<R>): Promise<R[]> {
    const scope = this.scope.getStore();
    if (scope?.across) throw acrossJoined();
    if (scope) return this.query(statement);
    const [client, release] = await this.connection();
    try {
      const result = await client.query(driverQuery(statement, this.sessionBound));
      return this.announced(statement, result.rows as R[]);
    } finally {
      // a failed autocommit statement leaves the connection clean; a lost one is caught anyway
      release();
    }
  }

  /** Runs work as the owner role, across tenants: workers, sweepers and the admin CLI only. */
  runAsSystem<T>(work: () => Promise<T>): Promise<T> {
    const current = this.scope.getStore();
    if (current?.across) return Promise.reject(acrossJoined());
    if (current) return work();
    return this.transaction(null, [], () => work());
  }

  /**
   * Runs work in a READ ONLY transaction as PLATFORM_ROLE, whose policies let it read every
   * tenant's rows and write none: the platform API's explicitly cross-tenant routes (review queue,
   * events, audit) only. Row-level security stays on; no tenant or system work may join it.
   */
  readAcrossTenants<T>(work: () => Promise<T>): Promise<T> {
    if (this.scope.getStore()) return Promise.reject(acrossJoined());
    return this.transaction(null, [], () => work(), true);
  }

  /**
   * A statement as the owner role: in the current system transaction (`runAsSystem`), else on the
   * pool, never in a tenant's transaction (which runs as the application role). Administrator
   * reads and writes (tenancy, credentials) use it.
   */
  async ownerQuery<R>(statement: Statement<R>): Promise<R[]> {
    const scope = this.scope.getStore();
    if (!scope || scope.tenantId !== null) {
      const rows: R[] = await this.dataSource.query(statement.text, statement.values);
      return this.announced(statement, rows);
    }
    assertOpen(scope);
    const result = await scope.client.query(driverQuery(statement, this.sessionBound));
    return this.announced(statement, result.rows as R[], scope.end.announce);
  }

  /**
   * `rows`, after taking `statement`'s announcements: into its transaction's (`until`), sent
   * when that commits, or sent now for an autocommit statement.
   */
  private announced<R>(statement: Statement<R>, rows: R[], until?: Set<string>): R[] {
    const channels = statement.announces?.(rows) ?? [];
    if (until) for (const channel of channels) until.add(channel);
    else this.announcer.announce(channels);
    return rows;
  }

  /** The entity manager of the current transaction (or a plain one outside of any). */
  get manager(): EntityManager {
    const scope = this.scope.getStore();
    if (!scope) return this.dataSource.manager;
    assertOpen(scope);
    return scope.manager();
  }

  repo<E extends ObjectLiteral>(entity: EntityTarget<E>): Repository<E> {
    return this.manager.getRepository(entity);
  }

  /**
   * Opens a transaction in one round trip — for a tenant: `START; SET LOCAL ROLE; EXECUTE <pin
   * tenant>; EXECUTE <each of calls>` — and runs `work` with the rows of `calls` in it.
   */
  private transaction<T>(
    tenantId: number | null,
    calls: readonly Sql[],
    work: (read: Rows[]) => Promise<T>,
    across = false,
  ): Promise<T> {
    const opener = {
      connection: () => this.connection(),
      opening: this.opening,
      round: this.round,
    };
    return openTransaction(
      opener,
      tenantId,
      calls,
      (client, release, read) =>
        runInScope(
          this.scope,
          this.dataSource,
          client,
          release,
          tenantId,
          () => work(read),
          across,
          (channels) => this.announcer.announce(channels),
        ),
      across,
    );
  }

  /** A pooled connection and the function that returns it (transaction-connection.ts). */
  private connection(): Promise<PooledConnection> {
    return pooledConnection(this.dataSource);
  }
}
