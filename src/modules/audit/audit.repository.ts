import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUDIT_PRUNE_SETTING } from '../../common/database/schema-constants.js';
import { empty, join, sql, type Statement } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

export type AuditOutcome = 'success' | 'failure';

/** One audit line to write, with the time of its action. */
export interface AuditLine {
  tenantId: number | null;
  credentialRef: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  detail: string | null;
  ip: string | null;
  requestId: string | null;
  /** Who, in the platform's UI, a platform key acted for (`X-Acting-User`). */
  actor: string | null;
  at: Date;
}

/** Which lines a listing shows; every set member must match. */
export interface AuditFilter {
  tenantId?: number;
  action?: string;
  /** Created at or after (ISO 8601). */
  since?: string;
  /** Created before (ISO 8601). */
  until?: string;
}

/** An audit line as the CLI and the platform API list it; never a secret (none is recorded). */
export interface AuditRecord {
  id: number;
  /** Null for lines before a tenant was known (a refused token request). */
  tenant_id: number | null;
  /** Which credential acted (`client:…`, `pat:…`, `platform:<key name>`, `cli`). */
  credential: string | null;
  /** Who, in the platform's UI, a platform key acted for (`X-Acting-User`); null otherwise. */
  actor: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  detail: string | null;
  ip: string | null;
  request_id: string | null;
  created_at: string;
}

/** An audit line as its statement reads it: the id a bigint string, the time a Date. */
export type AuditRow = Omit<AuditRecord, 'id' | 'created_at'> & { id: string; created_at: Date };

/** The append-only `audit_log`: batched inserts, the CLI's listing and its prune. */
@Injectable()
export class AuditRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly tx: TenantTransactions,
  ) {}

  /**
   * Writes the lines in one multi-row INSERT. A tenant id that names no tenant is written as null
   * (the line keeps its target): a platform route audits the tenant of its path, which may be
   * unknown (its 404), and one such line must not fail the foreign key, and with it the batch.
   */
  async insert(lines: readonly AuditLine[]): Promise<void> {
    const column = <T>(pick: (l: AuditLine) => T): T[] => lines.map(pick);
    const tenants = column((l) => l.tenantId);
    const credentials = column((l) => l.credentialRef);
    const actions = column((l) => l.action);
    const targets = column((l) => l.target);
    const outcomes = column((l) => l.outcome);
    const details = column((l) => l.detail);
    const ips = column((l) => l.ip);
    const requests = column((l) => l.requestId);
    const actors = column((l) => l.actor);
    const ats = column((l) => l.at);
    await this.run(sql`INSERT INTO audit_log
           (tenant_id, credential_ref, action, target, outcome, detail, ip, request_id, actor,
            created_at)
         SELECT (SELECT t.id FROM tenants t WHERE t.id = u.tenant_id), u.credential_ref, u.action,
                u.target, u.outcome, u.detail, u.ip, u.request_id, u.actor, u.created_at
           FROM unnest(${tenants}::int[], ${credentials}::text[], ${actions}::text[], ${targets}::text[], ${outcomes}::text[], ${details}::text[],
                       ${ips}::text[], ${requests}::text[], ${actors}::text[], ${ats}::timestamptz[])
             AS u(tenant_id, credential_ref, action, target, outcome, detail, ip, request_id, actor,
                  created_at)`);
  }

  /**
   * In the current (system) transaction: announces `before` to the append-only trigger with SET
   * LOCAL, then deletes at most `batch` rows created before it (of one tenant, or of all), rows
   * another prune holds skipped. How many.
   */
  async pruneBatch(before: string, tenantId: number | null, batch: number): Promise<number> {
    await this.tx.query(sql`SELECT set_config(${AUDIT_PRUNE_SETTING}, ${before}, true)`);
    const [row] = await this.tx.query(sql<{ n: number }>`WITH d AS (
             DELETE FROM audit_log WHERE id IN (
               SELECT id FROM audit_log
                WHERE created_at < ${before} AND (${tenantId}::int IS NULL OR tenant_id = ${tenantId})
                LIMIT ${batch}
                FOR UPDATE SKIP LOCKED)
             RETURNING 1)
           SELECT count(*)::int AS n FROM d`);
    return row!.n;
  }

  /** The line that records a prune (written by the CLI as `cli`). */
  async insertPrune(
    tenantId: number | null,
    target: string,
    outcome: AuditOutcome,
    detail: string,
  ): Promise<void> {
    await this
      .run(sql`INSERT INTO audit_log (tenant_id, credential_ref, action, target, outcome, detail)
       VALUES (${tenantId}, 'cli', 'audit.prune', ${target}, ${outcome}, ${detail})`);
  }

  /**
   * Newest lines first, older than the id `before` (when given), of `filter`, at most `limit`; in
   * the caller's transaction (a tenant's, or one across tenants). Filters are spliced in only when
   * set, so each combination is planned for itself.
   */
  page(filter: AuditFilter, before: number | null, limit: number): Promise<AuditRow[]> {
    const { tenantId, action, since, until } = filter;
    const conditions = [
      before === null ? null : sql`id < ${before}::bigint`,
      tenantId === undefined ? null : sql`tenant_id = ${tenantId}::int`,
      action === undefined ? null : sql`action = ${action}::text`,
      since === undefined ? null : sql`created_at >= ${since}::timestamptz`,
      until === undefined ? null : sql`created_at < ${until}::timestamptz`,
    ].filter((c) => c !== null);
    const where = conditions.length === 0 ? empty : sql`WHERE ${join(conditions, ' AND ')}`;
    return this.tx.query(
      sql<AuditRow>`SELECT id, tenant_id, credential_ref AS credential, actor, action, target,
                outcome, detail, ip, request_id, created_at
         FROM audit_log ${where} ORDER BY id DESC LIMIT ${limit}::int`,
    );
  }

  private run<R>(statement: Statement<R>): Promise<R[]> {
    return this.db.query(statement.text, statement.values);
  }
}
