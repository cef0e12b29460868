import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { outsideRequests } from '../../common/logging/background.js';
import { type AuditOutcome, AuditRepository, type AuditRow } from './audit.repository.js';

export type { AuditOutcome };

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
  /** The person in the platform's UI a platform key acted for (`X-Acting-User`). */
  actor?: string | null;
}

/** An audit line as the CLI lists it. */
export type AuditRecord = Omit<AuditRow, 'id' | 'created_at'> & { id: number; created_at: string };

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
    private readonly repository: AuditRepository,
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
    try {
      await this.repository.insert(
        batch.map(({ entry, at }) => ({
          ...entry,
          detail: entry.detail ?? null,
          ip: entry.ip ?? null,
          requestId: entry.requestId ?? null,
          actor: entry.actor ?? null,
          at,
        })),
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
        const count = await this.tx.runAsSystem(() =>
          this.repository.pruneBatch(bound, tenantId, batch),
        );
        deleted += count;
        if (count < batch) break;
      }
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
    }
    await this.repository.insertPrune(
      tenantId,
      tenantId === null ? 'audit_log' : `audit_log:tenant:${tenantId}`,
      failed ? 'failure' : 'success',
      `before=${bound} deleted=${deleted}`,
    );
    if (failed) throw failed;
    return deleted;
  }

  async list(tenantId: number, limit: number): Promise<AuditRecord[]> {
    const rows = await this.repository.list(tenantId, limit);
    return rows.map((r) => ({
      ...r,
      id: Number(r.id),
      created_at: r.created_at.toISOString(),
    }));
  }
}
