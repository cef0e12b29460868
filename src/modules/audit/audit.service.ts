import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { outsideRequests } from '../../common/logging/background.js';
import { ValidationFailedError } from '../../common/http/app-error.js';
import type { TenantDirectory } from '../../common/access/tenant-directory.js';
import { Cursor, type CursorPage, type ListIdentity } from '../../common/pagination/cursor.js';
import {
  type AuditFilter,
  type AuditOutcome,
  type AuditRecord,
  AuditRepository,
} from './audit.repository.js';

export type { AuditFilter, AuditOutcome, AuditRecord };

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

/**
 * A time bound as PostgreSQL should read it (ISO 8601, UTC); 400 `validation_failed` for a day
 * or time that does not exist (`2026-02-30`), which Date would roll over.
 */
function instant(field: string, text: string): string {
  const at = new Date(text);
  const sameDay = text.length !== 10 || at.toISOString().slice(0, 10) === text;
  if (Number.isNaN(at.getTime()) || !sameDay) {
    throw new ValidationFailedError([{ field, message: 'is not a valid date or date-time' }]);
  }
  return at.toISOString();
}

/** Cursors of one filter set are refused with another (its walk would skip or repeat lines). */
const auditList = (f: AuditFilter): ListIdentity => ({
  tenantId: f.tenantId ?? 0,
  list: 'audit',
  scope: [f.action ?? '', f.since ?? '', f.until ?? ''],
});

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

  /**
   * The trail newest first, `limit` lines a page, for the CLI's `audit list` and the platform
   * API's `GET /audit` alike. With a tenant: in that tenant's transaction (row-level security
   * pinned to it); without: every tenant's lines and those of no tenant, through a read-only
   * transaction of the platform role. `cursor` is the `next_cursor` of the previous page of the
   * same filter (400 `validation_failed` otherwise). `tenants`, from callers that take the tenant
   * id from outside (CLI, platform API), answers 404 for an unknown `filter.tenantId`: the
   * caller's, because tenancy builds on this context and not the other way round.
   */
  async list(
    filter: AuditFilter,
    limit: number,
    cursor?: string,
    tenants?: TenantDirectory,
  ): Promise<CursorPage<AuditRecord>> {
    const since = filter.since === undefined ? undefined : instant('since', filter.since);
    const until = filter.until === undefined ? undefined : instant('until', filter.until);
    if (filter.tenantId !== undefined) await tenants?.assertExists(filter.tenantId);
    const identity = auditList(filter);
    const before = Cursor.decode(identity, cursor)?.[0] ?? null;
    const read = () => this.repository.page({ ...filter, since, until }, before, limit + 1);
    const rows =
      filter.tenantId === undefined
        ? await this.tx.readAcrossTenants(read)
        : await this.tx.run(filter.tenantId, read);
    const more = rows.length > limit;
    const data = rows.slice(0, limit).map((r): AuditRecord => ({
      id: Number(r.id),
      tenant_id: r.tenant_id,
      credential: r.credential,
      actor: r.actor,
      action: r.action,
      target: r.target,
      outcome: r.outcome,
      detail: r.detail,
      ip: r.ip,
      request_id: r.request_id,
      created_at: r.created_at.toISOString(),
    }));
    const last = data.at(-1);
    return { data, next_cursor: more && last ? Cursor.encode(identity, [last.id]) : null };
  }
}
