import { createHash } from 'node:crypto';
import type { ClientBase as PgClient, QueryConfig } from 'pg';
import { inlinedInteger, type Sql } from './statement.js';

/**
 * Server-side prepared statements for the round trips sent with the simple query protocol
 * (`TenantTransactions.runOpening` and `readOnce`), which cannot use the driver's named
 * statements. Parsing and planning were most of PostgreSQL's work on the hot paths (measured:
 * ~1.0 ms of server CPU per staging unprepared, ~0.45–0.65 ms prepared); a statement is now
 * PREPAREd once per connection, in the same round trip as its first EXECUTE, and executed by name
 * afterwards. Arguments are integers only, validated and inlined, as before.
 *
 * Prepared statements live in the session, not the transaction: one PREPAREd in a transaction
 * that rolls back stays. After a failed round trip that carried PREPAREs, the connection's list is
 * read back from `pg_prepared_statements` before it is trusted again.
 */
export class PreparedStatements {
  /** What each pooled connection has prepared; `undefined`: nothing, or not known (see resync). */
  private readonly prepared = new WeakMap<PgClient, Set<string>>();
  private readonly unknown = new WeakSet<PgClient>();
  private readonly names = new Map<string, string>();

  /**
   * The statements to send for `calls` on `client`: the PREPAREs it lacks, then one EXECUTE per
   * call, in order. `confirm` them once the round trip succeeded, `failed` after it failed.
   */
  async compile(client: PgClient, calls: readonly Sql[]): Promise<CompiledCalls> {
    if (this.unknown.has(client)) await this.resync(client);
    const have = this.prepared.get(client);
    const prepares: string[] = [];
    const pending: string[] = [];
    const executes = calls.map((call) => {
      const text = call.text;
      const name = this.nameOf(text);
      if (!have?.has(name) && !pending.includes(name)) {
        prepares.push(`PREPARE ${name} AS ${text}`);
        pending.push(name);
      }
      const args = call.values.map((value, i) => inlinedInteger(value, i + 1));
      return args.length ? `EXECUTE ${name}(${args.join(', ')})` : `EXECUTE ${name}`;
    });
    return { prepares, executes, pending };
  }

  /** The round trip that carried `compiled` succeeded: its PREPAREs exist on `client`. */
  confirm(client: PgClient, compiled: CompiledCalls): void {
    if (!compiled.pending.length) return;
    let have = this.prepared.get(client);
    if (!have) this.prepared.set(client, (have = new Set()));
    for (const name of compiled.pending) have.add(name);
  }

  /**
   * The round trip that carried `compiled` failed: some of its PREPAREs may have run. The
   * connection's list is read back before its next use (or now, if it can still answer).
   */
  async failed(client: PgClient, compiled: CompiledCalls): Promise<void> {
    if (!compiled.pending.length) return;
    this.unknown.add(client);
    await this.resync(client).catch(() => undefined);
  }

  private async resync(client: PgClient): Promise<void> {
    const { rows } = await client.query<{ name: string }>(
      `SELECT name FROM pg_prepared_statements WHERE name LIKE '${PREFIX}%'`,
    );
    this.prepared.set(client, new Set(rows.map((r) => r.name)));
    this.unknown.delete(client);
  }

  /** The name a statement text is prepared under: derived from the text, so one text, one name. */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) this.names.set(text, (name = digestName(PREFIX, text)));
    return name;
  }
}

export interface CompiledCalls {
  prepares: string[];
  executes: string[];
  /** Names PREPAREd by this round trip. */
  pending: string[];
}

/** The server's namespace is shared with the driver's named statements: each kind has a prefix. */
const PREFIX = 'grc_s_';
const DRIVER_PREFIX = 'grc_x_';

const driverNames = new Map<string, string>();

/** The name under which the driver prepares `sql` (once per connection, on its first use). */
export function driverStatementName(sql: string): string {
  let name = driverNames.get(sql);
  if (!name) driverNames.set(sql, (name = digestName(DRIVER_PREFIX, sql)));
  return name;
}

/**
 * A parameterised statement for the driver: named (parsed and planned once per connection) when
 * the connection is ours (`named`), unnamed behind a transaction pooler.
 */
export function driverQuery(statement: Sql, named: boolean): QueryConfig {
  const { text, values } = statement;
  return named ? { name: driverStatementName(text), text, values } : { text, values };
}

/** A statement's name: derived from its text, so one text always has one name. */
function digestName(prefix: string, sql: string): string {
  return prefix + createHash('sha256').update(sql).digest('hex').slice(0, 20);
}
