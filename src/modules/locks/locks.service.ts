import { Injectable, Logger } from '@nestjs/common';
import { digest, digestsEqual, isWellFormedToken, mintToken } from '../../common/crypto/tokens.js';
import { type Batch, batchOf, sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { Principal } from '../auth/principal.js';
import { DocumentService } from '../documents/documents.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { TTL_MINUTES_DEFAULT } from './dto/lock.dto.js';
import type { CheckinResponseDto, CheckoutResponseDto } from './dto/lock.dto.js';
import { DocumentLockedError, LockTokenInvalidError } from './locks.errors.js';

interface LiveLockRow {
  id: number;
  token_digest: Buffer;
  expires_at: Date;
}

interface ExpiredLockRow {
  document_id: number;
  expires_at: Date;
}

export interface WriteAccess {
  /** Throws 423 `document_locked` unless the document is unlocked or `lockToken` is its lock's. */
  assertWritable(lockToken: string | undefined): void;
}

const liveLock = (tenantId: number, documentId: number) => sql<LiveLockRow>`
  SELECT id, token_digest, expires_at FROM document_locks
   WHERE tenant_id = ${tenantId} AND document_id = ${documentId}
     AND released_at IS NULL AND expires_at > now()`;

/** TypeORM answers an UPDATE … RETURNING with `[rows, affected]`, unlike a SELECT or INSERT. */
type UpdateResult<Row> = [Row[], number];

/** Locks released per tenant transaction by one sweep pass; the next tick takes the rest. */
const SWEEP_BATCH = 500;

@Injectable()
export class LocksService {
  private readonly logger = new Logger(LocksService.name);

  constructor(
    private readonly tx: TenantTransactions,
    private readonly documents: DocumentService,
    private readonly events: WebhookOutbox,
  ) {}

  /**
   * The document's live lock, read in the round trip that opens the caller's transaction, after
   * the statements that take the document row lock (so the answer cannot change before the
   * caller's write commits, and a lock committed while it waited is seen). Its value's
   * `assertWritable` admits anyone when the document is not locked, only the lock's own token
   * when it is, and throws 423 otherwise.
   */
  writeAccess(tenantId: number, documentId: number): Batch<WriteAccess> {
    return batchOf(liveLock(tenantId, documentId), (rows) => {
      const live = rows[0];
      return {
        assertWritable: (lockToken) => {
          if (!live) return;
          if (lockToken !== undefined && this.tokenMatches(lockToken, live.token_digest)) return;
          throw new DocumentLockedError(live.expires_at);
        },
      };
    });
  }

  /**
   * The document row lock serialises checkouts of one document; the partial unique index is the
   * wall behind it, so even a path that skipped the row lock could not create a second open lock.
   */
  async checkout(
    principal: Principal,
    documentId: number,
    ttlMinutes: number = TTL_MINUTES_DEFAULT,
  ): Promise<CheckoutResponseDto> {
    const { tenantId } = principal;
    const token = mintToken('glk');
    return this.tx.run(tenantId, async () => {
      await this.documents.lockDocument(tenantId, documentId);
      await this.releaseExpired(tenantId, documentId);
      // a conflict on document_locks_one_open means a live lock exists: 423, and the transaction
      // stays usable (DO NOTHING instead of a 23505 that would abort it)
      const rows: { expires_at: Date }[] = await this.tx.manager.query(
        `INSERT INTO document_locks (tenant_id, document_id, token_digest, credential_ref, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))
         ON CONFLICT (document_id) WHERE released_at IS NULL DO NOTHING
         RETURNING expires_at`,
        [tenantId, documentId, digest(token), principal.credential.ref, ttlMinutes],
      );
      const inserted = rows[0];
      if (!inserted) throw await this.lockedError(tenantId, documentId);
      const expiresAt = inserted.expires_at.toISOString();
      await this.events.publish(tenantId, 'document.checked_out', {
        documentId,
        expires_at: expiresAt,
      });
      return { documentId, lock_token: token, expires_at: expiresAt };
    });
  }

  async checkin(
    principal: Principal,
    documentId: number,
    lockToken: string,
  ): Promise<CheckinResponseDto> {
    const { tenantId } = principal;
    return this.tx.run(tenantId, async () => {
      await this.documents.lockDocument(tenantId, documentId);
      // a malformed token cannot be anyone's: refuse it before looking any token up
      if (!isWellFormedToken(lockToken, 'glk')) throw new LockTokenInvalidError();
      const live = await this.findLiveLock(tenantId, documentId);
      if (!live || !digestsEqual(digest(lockToken), live.token_digest)) {
        throw new LockTokenInvalidError();
      }
      const [rows]: UpdateResult<{ released_at: Date }> = await this.tx.manager.query(
        `UPDATE document_locks SET released_at = now(), release_reason = 'checked_in'
          WHERE id = $1 AND tenant_id = $2 AND released_at IS NULL
          RETURNING released_at`,
        [live.id, tenantId],
      );
      const released = rows[0];
      if (!released) throw new LockTokenInvalidError();
      const releasedAt = released.released_at.toISOString();
      await this.events.publish(tenantId, 'document.checked_in', {
        documentId,
        released_at: releasedAt,
      });
      return { documentId, released_at: releasedAt };
    });
  }

  /**
   * Releases every expired lock (as `expired`, at its expiry) and publishes `document.lock_expired`
   * for each, in the tenant transaction that releases it. Claims rows with SKIP LOCKED, so any
   * number of replicas may sweep at once and each lock is released, and announced, exactly once.
   * Returns how many locks were released.
   */
  async sweepExpired(): Promise<number> {
    const tenants: { tenant_id: number }[] = await this.tx.runAsSystem(() =>
      this.tx.manager.query(
        `SELECT DISTINCT tenant_id FROM document_locks
          WHERE released_at IS NULL AND expires_at <= now()`,
      ),
    );
    let released = 0;
    for (const { tenant_id: tenantId } of tenants) {
      try {
        released += await this.tx.run(tenantId, async () => {
          const [rows]: UpdateResult<ExpiredLockRow> = await this.tx.manager.query(
            `UPDATE document_locks SET released_at = expires_at, release_reason = 'expired'
              WHERE id IN (SELECT id FROM document_locks
                            WHERE tenant_id = $1 AND released_at IS NULL AND expires_at <= now()
                            ORDER BY expires_at LIMIT ${SWEEP_BATCH}
                            FOR UPDATE SKIP LOCKED)
              RETURNING document_id, expires_at`,
            [tenantId],
          );
          await this.publishExpired(tenantId, rows);
          return rows.length;
        });
      } catch (error) {
        // one tenant's failure must not starve the others; the next tick retries it
        this.logger.error(
          { err: error, tenantId },
          'releasing expired document locks failed for a tenant',
        );
      }
    }
    return released;
  }

  /** Checkout releases the document's expired lock itself, so it never waits for the sweep. */
  private async releaseExpired(tenantId: number, documentId: number): Promise<void> {
    const [rows]: UpdateResult<ExpiredLockRow> = await this.tx.manager.query(
      `UPDATE document_locks SET released_at = expires_at, release_reason = 'expired'
        WHERE tenant_id = $1 AND document_id = $2 AND released_at IS NULL AND expires_at <= now()
        RETURNING document_id, expires_at`,
      [tenantId, documentId],
    );
    await this.publishExpired(tenantId, rows);
  }

  private async publishExpired(tenantId: number, rows: ExpiredLockRow[]): Promise<void> {
    for (const row of rows) {
      await this.events.publish(tenantId, 'document.lock_expired', {
        documentId: row.document_id,
        expired_at: row.expires_at.toISOString(),
      });
    }
  }

  private async lockedError(tenantId: number, documentId: number): Promise<DocumentLockedError> {
    const live = await this.findLiveLock(tenantId, documentId);
    // the winner may already be gone; its expiry is unknown, so report "now" rather than invent one
    return new DocumentLockedError(live?.expires_at ?? new Date());
  }

  private async findLiveLock(tenantId: number, documentId: number): Promise<LiveLockRow | null> {
    const rows = await this.tx.query(liveLock(tenantId, documentId));
    return rows[0] ?? null;
  }

  private tokenMatches(token: string, stored: Buffer): boolean {
    return isWellFormedToken(token, 'glk') && digestsEqual(digest(token), stored);
  }
}
