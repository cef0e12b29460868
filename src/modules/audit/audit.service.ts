import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUDIT_PRUNE_SETTING } from '../../common/database/schema-constants.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { outsideRequests } from '../../common/logging/background.js';

export type AuditOutcome = 'success' | 'failure';

export interface AuditEntry {
  tenantId: number | null;
  credentialRef: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** A stable code (e.g. the error code of a refusal); never a secret or free text from a body. */
  detail?: string | null;
  ip?: string | null;
  requestId?: string | null;
}

export interface AuditRecord {
  id: number;
  tenant_id: number | null;
  credential: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  detail: string | null;
  ip: string | null;
  request_id: string | null;
  created_at: string;
}

/** Entries wait at most this long to be written together with their neighbours. */
const FLUSH_AFTER_MS = 20;
const MAX_BATCH = 500;

interface Pending {
  entry: AuditEntry;
  at: Date;
  done: () => void;
}

/**
 * The append-only audit trail (token issuance, staging, decisions, locks, webhooks, replays).
 * Entries are written in small batches, one multi-row INSERT every few milliseconds, instead of a
 * committed (fsynced) insert per request: under load that halves the commits of a token request.
 * Each entry keeps the time of its action; `record` resolves once its batch is written.
 */
@Injectable()
export class AuditService implements OnModuleDestroy {
  private readonly logger = new Logger('Audit');
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly tx: TenantTransactions,
  ) {}

  record(entry: AuditEntry): Promise<void> {
    return new Promise((done) => {
      this.pending.push({ entry, at: new Date(), done });
      if (this.pending.length >= MAX_BATCH) this.flushSoon(0);
      else this.flushSoon(FLUSH_AFTER_MS);
    });
  }

  /** Writes what is pending; the application waits for it before the database closes. */
  async onModuleDestroy(): Promise<void> {
    await this.drain();
  }

  /** Resolves once every entry recorded so far is written (shutdown; consistent snapshots). */
  async drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    // a batch holds many requests' entries: its write (and its failure's log line) belongs to
    // none of them, not to the request that happened to schedule it
    this.timer = outsideRequests(() =>
      setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, delayMs),
    );
  }

  private flush(): Promise<void> {
    // one batch at a time keeps ids in the order of the actions
    this.flushing = this.flushing.then(() => this.write(this.pending.splice(0)));
    return this.flushing;
  }

  private async write(batch: Pending[]): Promise<void> {
    if (batch.length === 0) return;
    const column = <T>(pick: (p: Pending) => T): T[] => batch.map(pick);
    try {
      await this.db.query(
        `INSERT INTO audit_log
           (tenant_id, credential_ref, action, target, outcome, detail, ip, request_id, created_at)
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                              $7::text[], $8::text[], $9::timestamptz[])`,
        [
          column((p) => p.entry.tenantId),
          column((p) => p.entry.credentialRef),
          column((p) => p.entry.action),
          column((p) => p.entry.target),
          column((p) => p.entry.outcome),
          column((p) => p.entry.detail ?? null),
          column((p) => p.entry.ip ?? null),
          column((p) => p.entry.requestId ?? null),
          column((p) => p.at),
        ],
      );
    } catch (err) {
      // the actions themselves have happened; losing their audit lines must not fail them
      this.logger.error({ err, entries: batch.length }, 'audit records could not be written');
    } finally {
      for (const p of batch) p.done();
    }
  }

  /**
   * The one way audit rows are deleted (`audit prune`): rows created before `before` (of one
   * tenant, or of all), `batch` per statement in a transaction of its own that announces the bound
   * to the append-only trigger with SET LOCAL, until none is left. Then one entry records the
   * prune itself (who, bound, count, and a failure part-way); it is newer than the bound, which
   * the trigger requires to be at least a day old, so no prune deletes it. Returns rows deleted.
   */
  async prune(before: Date, tenantId: number | null, batch: number): Promise<number> {
    const bound = before.toISOString();
    let deleted = 0;
    let failed: Error | null = null;
    try {
      for (;;) {
        const count = await this.tx.runAsSystem(async () => {
          const m = this.tx.manager;
          await m.query(`SELECT set_config($1, $2, true)`, [AUDIT_PRUNE_SETTING, bound]);
          const [, n]: [unknown, number] = await m.query(
            `DELETE FROM audit_log WHERE id IN (
               SELECT id FROM audit_log
                WHERE created_at < $1 AND ($2::int IS NULL OR tenant_id = $2)
                LIMIT $3
                FOR UPDATE SKIP LOCKED)`,
            [bound, tenantId, batch],
          );
          return n;
        });
        deleted += count;
        if (count < batch) break;
      }
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
    }
    await this.db.query(
      `INSERT INTO audit_log (tenant_id, credential_ref, action, target, outcome, detail)
       VALUES ($1, 'cli', 'audit.prune', $2, $3, $4)`,
      [
        tenantId,
        tenantId === null ? 'audit_log' : `audit_log:tenant:${tenantId}`,
        failed ? 'failure' : 'success',
        `before=${bound} deleted=${deleted}`,
      ],
    );
    if (failed) throw failed;
    return deleted;
  }

  async list(tenantId: number, limit: number): Promise<AuditRecord[]> {
    const rows: Array<Omit<AuditRecord, 'created_at' | 'id'> & { id: string; created_at: Date }> =
      await this.db.query(
        `SELECT id, tenant_id, credential_ref AS credential, action, target, outcome, detail, ip,
                request_id, created_at
         FROM audit_log WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2`,
        [tenantId, limit],
      );
    return rows.map((r) => ({ ...r, id: Number(r.id), created_at: r.created_at.toISOString() }));
  }
}
