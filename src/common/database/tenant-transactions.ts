import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Client as PgFullClient, ClientBase as PgClient, QueryConfig, QueryResult } from 'pg';
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
import { AppConfig } from '../config/app-config.js';
import { verifiedCredential } from './credential-freshness.js';
import { timeoutStatements } from './statement-timeouts.js';
import {
  type CompiledCalls,
  driverStatementName,
  PreparedStatements,
} from './prepared-statements.js';
import { type Batch, fragment, inlined, type Sql, sql, type Statement } from './statement.js';

/**
 * What each pooled connection has prepared, kept per connection object, so shared by every
 * instance that may ever use the same pool (two would otherwise PREPARE the same name twice).
 */
const PREPARED = new PreparedStatements();

const isTenantId = (tenantId: number): boolean => Number.isSafeInteger(tenantId) && tenantId >= 1;
const invalidTenant = (): Error => new Error('tenant transaction without a valid tenant id');

/** Re-verifications one request may need before its transaction settles (changes in a burst). */
const MAX_REVERIFY = 3;

/**
 * Pins the tenant; answers one row with the current credential generation. Sent (prepared) right
 * after `START TRANSACTION; SET LOCAL ROLE …` in the round trip that opens a tenant transaction.
 */
const pinTenant = (tenantId: number): Sql =>
  sql`SELECT set_config('app.tenant_id', ${tenantId}::text, true), ${fragment(CREDENTIAL_GENERATION)} AS generation`;

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

interface TransactionScope {
  /** TypeORM's manager bound to the transaction, created on first use. */
  manager: () => EntityManager;
  /** The connection it runs on. */
  client: PgClient;
  /** null: the owner role (system work), which sees every tenant. */
  tenantId: number | null;
  /** True in a `run` that joined a transaction opened further out: it cannot end it. */
  joined: boolean;
  /** Shared by the owner and every joined run: the COMMIT `queryAndCommit` sent, if any. */
  end: { commit?: Promise<unknown> };
}

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
 * That same round trip reads `credential_generation`: if the request's credential was verified
 * before a credential change that has committed since (possible only in the milliseconds before
 * the change's notification reaches this process's cache), the transaction is rolled back before
 * any work, the credential is verified again from the database, and the transaction reopened.
 */
@Injectable()
export class TenantTransactions {
  private readonly scope = new AsyncLocalStorage<TransactionScope>();
  private readonly prepared = PREPARED;
  /**
   * False behind a transaction pooler: consecutive transactions of one pooled connection may run
   * on different server connections, so nothing is prepared (the pooler would answer "prepared
   * statement … does not exist", or "already exists"), and the timeouts are set in each
   * transaction, since no session of ours outlives it.
   */
  private readonly sessionBound: boolean;
  /** Statements sent right after START TRANSACTION, before anything else. */
  private readonly opening: readonly string[];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: AppConfig,
  ) {
    this.sessionBound = config.DATABASE_POOL_MODE === 'session';
    this.opening = this.sessionBound ? [] : timeoutStatements('LOCAL');
  }

  run<T>(tenantId: number, work: () => Promise<T>): Promise<T> {
    if (!isTenantId(tenantId)) return Promise.reject(invalidTenant());
    const current = this.scope.getStore();
    if (current) {
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

  /**
   * One read-only statement in a tenant transaction of its own, sent as ONE round trip
   * (`START …; SET LOCAL ROLE …; EXECUTE <pin tenant>; EXECUTE <statement>; COMMIT`). The price:
   * the simple query protocol has no bind parameters, so `$n` placeholders may only stand for
   * integers, which are validated and inlined. The hot read paths use it; everything else `run`.
   */
  async readOnce<R>(tenantId: number, statement: Statement<R>): Promise<R[]> {
    if (this.scope.getStore()) return this.run(tenantId, () => this.query(statement));
    if (!isTenantId(tenantId)) throw invalidTenant();
    for (let attempt = 1; ; attempt++) {
      const [opened, rows] = await this.readOnceRaw(tenantId, statement);
      const generation = opened[0]?.['generation'];
      if (attempt > MAX_REVERIFY || !isStale(generation)) return rows as R[];
      await reverify(generation);
    }
  }

  /**
   * A parameterised statement in the current transaction, as a named prepared statement of its
   * connection (parsed and planned once per connection, not per request); its rows. For the
   * statements of the hot write paths; outside a transaction of ours, an ordinary query.
   */
  async query<R>(statement: Statement<R>): Promise<R[]> {
    const scope = this.scope.getStore();
    if (!scope) return this.dataSource.query(statement.text, statement.values);
    assertOpen(scope);
    const result = await scope.client.query(this.statement(statement));
    return result.rows as R[];
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
    const result = scope.client.query(this.statement(statement));
    const commit = scope.client.query('COMMIT');
    // awaited by inTransaction, which also sees its failure; never an unhandled rejection here
    commit.catch(() => undefined);
    scope.end.commit = commit;
    return (await result).rows as R[];
  }

  /** Returns the rows of the tenant pin and of `call`, read in one round trip that commits. */
  private async readOnceRaw(tenantId: number, call: Sql): Promise<[Rows, Rows]> {
    const [client, release] = await this.connection();
    const [pinned = [], rows = []] = await this.sendOpening(
      client,
      release,
      tenantId,
      [call],
      true,
    );
    release();
    return [pinned, rows];
  }

  /**
   * The round trip that opens a tenant transaction on `client`: `START; SET LOCAL ROLE;` the
   * PREPAREs the connection lacks, `EXECUTE <pin tenant>`, `EXECUTE <each call>`, and `COMMIT`
   * when `readOnly` (the whole read is that round trip). Answers the rows of the pin, then of each
   * call. On failure it rolls back, re-reads the connection's prepared statements, gives the
   * connection back (discarded if it cannot even roll back) and rethrows.
   */
  private async sendOpening(
    client: PgClient,
    release: (broken?: unknown) => void,
    tenantId: number,
    calls: readonly Sql[],
    readOnly: boolean,
  ): Promise<Rows[]> {
    let compiled: CompiledCalls | undefined;
    try {
      compiled = await this.compile(client, [pinTenant(tenantId), ...calls]);
      const head = [
        `START TRANSACTION${readOnly ? ' READ ONLY' : ''}`,
        ...this.opening,
        `SET LOCAL ROLE ${APP_ROLE}`,
        ...compiled.prepares,
      ];
      const sql = [...head, ...compiled.executes, ...(readOnly ? ['COMMIT'] : [])];
      const results = (await client.query(sql.join('; '))) as unknown as PgResult[];
      this.prepared.confirm(client, compiled);
      // one result per statement: START, the SETs, the PREPAREs, then the pin and the calls
      const at = head.length;
      return results.slice(at, at + 1 + calls.length).map((r) => r.rows);
    } catch (err) {
      // a failed statement leaves the transaction open and aborted on this connection
      const broken = await rollback(client);
      if (compiled && !broken) await this.prepared.failed(client, compiled);
      release(broken);
      throw err;
    }
  }

  /** Runs work as the owner role, across tenants: workers, sweepers and the admin CLI only. */
  runAsSystem<T>(work: () => Promise<T>): Promise<T> {
    if (this.scope.getStore()) return work();
    return this.transaction(null, [], () => work());
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
  private async transaction<T>(
    tenantId: number | null,
    calls: readonly Sql[],
    work: (read: Rows[]) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const [client, release] = await this.connection();
      let read: Rows[] = [];
      let generation: unknown;
      if (tenantId === null) {
        try {
          await client.query(['START TRANSACTION', ...this.opening].join('; '));
        } catch (err) {
          release(await rollback(client));
          throw err;
        }
      } else {
        const [pinned, ...rows] = await this.sendOpening(client, release, tenantId, calls, false);
        generation = pinned?.[0]?.['generation'];
        read = rows;
      }
      if (attempt <= MAX_REVERIFY && isStale(generation)) {
        // nothing done yet; the connection goes back first, since verifying needs one of its own
        release(await rollback(client));
        await reverify(generation);
        continue;
      }
      return this.inTransaction(client, release, tenantId, () => work(read));
    }
  }

  private async inTransaction<T>(
    client: PgClient,
    release: (broken?: unknown) => void,
    tenantId: number | null,
    work: () => Promise<T>,
  ): Promise<T> {
    // TypeORM's view of this connection, made only when a query goes through it (the hot paths
    // send SQL on the connection itself and never pay for a query runner and entity manager)
    let runner: QueryRunner | undefined;
    const manager = (): EntityManager => {
      if (!runner) {
        runner = this.dataSource.createQueryRunner();
        // writable on TypeORM's query runners (the interface declares them read-only): the
        // connection is ours, and a transaction is open, so save() and friends do not start one
        Object.assign(runner, { databaseConnection: client, isTransactionActive: true });
      }
      return runner.manager;
    };
    let broken: unknown;
    const end: TransactionScope['end'] = {};
    try {
      const result = await this.scope.run({ manager, client, tenantId, joined: false, end }, work);
      await committed(end.commit ?? client.query('COMMIT'));
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

  /** `calls` as the statements to send: prepared once per connection when it is ours. */
  private async compile(client: PgClient, calls: readonly Sql[]): Promise<CompiledCalls> {
    if (this.sessionBound) return this.prepared.compile(client, calls);
    return { prepares: [], executes: calls.map(inlined), pending: [] };
  }

  /**
   * A parameterised statement: named (parsed and planned once per connection) when the
   * connection is ours, unnamed behind a transaction pooler.
   */
  private statement(statement: Sql): QueryConfig {
    const { text, values } = statement;
    return this.sessionBound ? { name: driverStatementName(text), text, values } : { text, values };
  }

  /**
   * A pooled connection and the function that returns it (pass an error to discard it). While it
   * is out, an error the connection itself emits (the server or a pooler closed it) is caught and
   * discards it: the pool listens only to idle connections, and an unheard 'error' event would end
   * the process. The query in flight fails with that error as well.
   */
  private async connection(): Promise<[PgClient, (broken?: unknown) => void]> {
    const [client, release] = await (
      this.dataSource.driver as unknown as {
        obtainMasterConnection(): Promise<[PgClient, (broken?: unknown) => void]>;
      }
    ).obtainMasterConnection();
    let lost: unknown;
    const onError = (err: unknown) => {
      lost = err ?? new Error('connection lost');
    };
    client.on('error', onError);
    return [
      client,
      (broken?: unknown) => {
        client.removeListener('error', onError);
        release(broken ?? lost);
      },
    ];
  }
}

/**
 * Rolls back whatever is open on `client`; answers the error when even that fails (the
 * connection is then discarded rather than returned to the pool), else undefined.
 */
async function rollback(client: PgClient): Promise<unknown> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (err) {
    return err ?? new Error('ROLLBACK failed');
  }
}

/** Whether the pool made `client` with `pipeline: true` (data-source-options.ts). */
function pipelines(client: PgClient): boolean {
  return (client as Partial<Pick<PgFullClient, 'pipeline'>>).pipeline === true;
}

function assertOpen(scope: TransactionScope): void {
  if (scope.end.commit) throw new Error('the transaction has committed: no statement may follow');
}

/**
 * Resolves once `commit` has committed. A COMMIT the server answers with ROLLBACK (the
 * transaction had failed: a pipelined statement's error) is a failure, never a success.
 */
async function committed(commit: Promise<unknown>): Promise<void> {
  const { command } = (await commit) as QueryResult;
  if (command !== 'COMMIT') throw new Error(`the transaction did not commit (${command})`);
}
