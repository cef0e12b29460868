import { Injectable, Logger } from '@nestjs/common';
import { digest, digestsEqual, isWellFormedToken, mintToken } from '../../common/crypto/tokens.js';
import { type Batch, batchOf } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { Principal } from '../../common/access/principal.js';
import { DocumentsService } from '../documents/documents.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { TTL_MINUTES_DEFAULT } from './dto/lock.request.js';
import type { CheckinResponse, CheckoutResponse } from './dto/lock.response.js';
import { DocumentLockedError, LockTokenInvalidError } from './locks.errors.js';
import { type ExpiredLockRow, LocksRepository } from './locks.repository.js';

export interface WriteAccess {
  /** Throws 423 `document_locked` unless the document is unlocked or `lockToken` is its lock's. */
  assertWritable(lockToken: string | undefined): void;
}

@Injectable()
export class LocksService {
  private readonly logger = new Logger(LocksService.name);

  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: LocksRepository,
    private readonly documents: DocumentsService,
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
    return batchOf(this.repository.liveLock(tenantId, documentId), (rows) => {
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
  ): Promise<CheckoutResponse> {
    const { tenantId } = principal;
    const token = mintToken('glk');
    return this.tx.run(tenantId, async () => {
      await this.documents.lockDocument(tenantId, documentId);
      await this.releaseExpired(tenantId, documentId);
      // none inserted: a live lock exists (423), and the transaction stays usable
      const inserted = await this.repository.insertLock({
        tenantId,
        documentId,
        tokenDigest: digest(token),
        credentialRef: principal.credential.ref,
        ttlMinutes,
      });
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
  ): Promise<CheckinResponse> {
    const { tenantId } = principal;
    return this.tx.run(tenantId, async () => {
      await this.documents.lockDocument(tenantId, documentId);
      // a malformed token cannot be anyone's: refuse it before looking any token up
      if (!isWellFormedToken(lockToken, 'glk')) throw new LockTokenInvalidError();
      const live = await this.repository.findLiveLock(tenantId, documentId);
      if (!live || !digestsEqual(digest(lockToken), live.token_digest)) {
        throw new LockTokenInvalidError();
      }
      const released = await this.repository.checkIn(tenantId, live.id);
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
    const tenants = await this.tx.runAsSystem(() => this.repository.tenantsWithExpired());
    let released = 0;
    for (const tenantId of tenants) {
      try {
        released += await this.tx.run(tenantId, async () => {
          const rows = await this.repository.releaseExpiredBatch(tenantId);
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
    const rows = await this.repository.releaseExpiredOf(tenantId, documentId);
    await this.publishExpired(tenantId, rows);
  }

  private async publishExpired(tenantId: number, rows: readonly ExpiredLockRow[]): Promise<void> {
    for (const row of rows) {
      await this.events.publish(tenantId, 'document.lock_expired', {
        documentId: row.document_id,
        expired_at: row.expires_at.toISOString(),
      });
    }
  }

  private async lockedError(tenantId: number, documentId: number): Promise<DocumentLockedError> {
    const live = await this.repository.findLiveLock(tenantId, documentId);
    // the winner may already be gone; its expiry is unknown, so report "now" rather than invent one
    return new DocumentLockedError(live?.expires_at ?? new Date());
  }

  private tokenMatches(token: string, stored: Buffer): boolean {
    return isWellFormedToken(token, 'glk') && digestsEqual(digest(token), stored);
  }
}
