import type { ClientBase as PgClient } from 'pg';
import { APP_ROLE } from './schema-constants.js';
import { type CompiledCalls, PreparedStatements } from './prepared-statements.js';
import { inlined, join, type Sql, sql } from './statement.js';
import { type PooledConnection, rollback } from './transaction-connection.js';

/**
 * What each pooled connection has prepared, kept per connection object, so shared by every
 * instance that may ever use the same pool (two would otherwise PREPARE the same name twice).
 */
const PREPARED = new PreparedStatements();

export type Rows = Array<Record<string, unknown>>;

/**
 * Applied to a call's rows as soon as the driver answers, in the first frame younger than the
 * wait for a connection (`send`; inside an open transaction, right after the query): it boxes big
 * texts (`holdColumns`) before the request's older promises and frames, which a scavenge keeps
 * alive dead or not, can point to them (bench/README.md, "page texts let go once sent"). Applied
 * to every attempt's rows, also one `readOnce` discards to refresh its opening.
 */
export type RowsHold = (rows: Rows) => void;

interface PgResult {
  rows: Rows;
}

/**
 * A check a module has the round trip that opens each tenant transaction make, at no extra round
 * trip: `select` adds columns to the row that pins the tenant. When `stale` finds that row stale,
 * the transaction is rolled back before any work, `refresh` runs (its error fails the work), and
 * the transaction is opened again. The kernel knows no more of what is checked.
 */
export interface OpeningCheck {
  /** Select-list items (`<expression> AS <name>`) read beside the tenant pin. */
  readonly select: Sql;
  stale(row: Readonly<Record<string, unknown>>): boolean;
  refresh(row: Readonly<Record<string, unknown>>): Promise<void>;
}

/**
 * The round trip that opens a tenant transaction: `START; <timeouts>; SET LOCAL ROLE;` the
 * PREPAREs the connection lacks, `EXECUTE <pin tenant>`, `EXECUTE <each call>`, and `COMMIT` when
 * the whole read is that round trip. The pin (with the registered checks' columns) and the calls
 * are server-side prepared when the connection is ours (session pooling), inlined otherwise.
 */
export class OpeningRoundTrip {
  private readonly prepared = PREPARED;
  private readonly checks: OpeningCheck[] = [];

  /**
   * `sessionBound`: whether statements may be prepared on the connection; `opening`: statements
   * sent right after START TRANSACTION, before anything else.
   */
  constructor(
    private readonly sessionBound: boolean,
    private readonly opening: readonly string[],
  ) {}

  register(check: OpeningCheck): void {
    this.checks.push(check);
  }

  /** The refreshes the checks ask for, given the pin's rows; none when the opening is fresh. */
  refreshes(pinned: Rows | undefined): Array<() => Promise<void>> {
    const row = pinned?.[0];
    if (!row) return [];
    return this.checks.filter((c) => c.stale(row)).map((c) => () => c.refresh(row));
  }

  /**
   * Sends the round trip on `client`; answers the rows of the pin, then of each call, each call's
   * put through `hold` first when one is given. If a statement fails, it rolls back, re-reads the
   * connection's prepared statements, gives the connection back (discarded if it cannot even roll
   * back) and rethrows; if `hold` fails, it gives the connection back and rethrows.
   */
  async send(
    client: PgClient,
    release: (broken?: unknown) => void,
    tenantId: number,
    calls: readonly Sql[],
    readOnly: boolean,
    hold?: RowsHold,
  ): Promise<Rows[]> {
    let compiled: CompiledCalls | undefined;
    let rows: Rows[];
    try {
      compiled = await this.compile(client, [this.pin(tenantId), ...calls]);
      const head = [
        `START TRANSACTION${readOnly ? ' READ ONLY' : ''}`,
        ...this.opening,
        `SET LOCAL ROLE ${APP_ROLE}`,
        ...compiled.prepares,
      ];
      const text = [...head, ...compiled.executes, ...(readOnly ? ['COMMIT'] : [])];
      const results = (await client.query(text.join('; '))) as unknown as PgResult[];
      this.prepared.confirm(client, compiled);
      // one result per statement: START, the SETs, the PREPAREs, then the pin and the calls
      const at = head.length;
      rows = results.slice(at, at + 1 + calls.length).map((r) => r.rows);
    } catch (err) {
      // a failed statement leaves the transaction open and aborted on this connection
      const broken = await rollback(client);
      if (compiled && !broken) await this.prepared.failed(client, compiled);
      release(broken);
      throw err;
    }
    try {
      for (const call of rows.slice(1)) hold?.(call);
    } catch (err) {
      // a read's round trip has committed: its connection is clean; one left open is discarded
      release(readOnly ? undefined : err);
      throw err;
    }
    return rows;
  }

  /**
   * Returns the rows of the tenant pin and of `call`, read on `connection` in one round trip that
   * commits (`TenantTransactions.readOnce`), and gives the connection back.
   */
  async readOnce(
    [client, release]: PooledConnection,
    tenantId: number,
    call: Sql,
    hold?: RowsHold,
  ): Promise<[Rows, Rows]> {
    const [pinned = [], rows = []] = await this.send(client, release, tenantId, [call], true, hold);
    release();
    return [pinned, rows];
  }

  /** Pins the tenant; answers one row with the registered checks' columns. */
  private pin(tenantId: number): Sql {
    const pin = sql`set_config('app.tenant_id', ${tenantId}::text, true)`;
    return sql`SELECT ${join([pin, ...this.checks.map((c) => c.select)], ', ')}`;
  }

  /** `calls` as the statements to send: prepared once per connection when it is ours. */
  private async compile(client: PgClient, calls: readonly Sql[]): Promise<CompiledCalls> {
    if (this.sessionBound) return this.prepared.compile(client, calls);
    return { prepares: [], executes: calls.map(inlined), pending: [] };
  }
}
