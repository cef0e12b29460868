import { Injectable } from '@nestjs/common';
import { fragment, sql, type Statement } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

export interface LiveLockRow {
  id: number;
  token_digest: Buffer;
  expires_at: Date;
}

export interface ExpiredLockRow {
  document_id: number;
  expires_at: Date;
}

/** Locks released per tenant transaction by one sweep pass; the next tick takes the rest. */
const SWEEP_BATCH = fragment('500');

/**
 * `document_locks`: the only SQL of the locks context. Every method but `liveLock` runs in the
 * caller's transaction (`TenantTransactions.run` or `runAsSystem`).
 */
@Injectable()
export class LocksRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /** The document's live lock (unreleased, unexpired), for the caller to send how it needs. */
  liveLock(tenantId: number, documentId: number): Statement<LiveLockRow> {
    return sql<LiveLockRow>`
      SELECT id, token_digest, expires_at FROM document_locks
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId}
         AND released_at IS NULL AND expires_at > now()`;
  }

  async findLiveLock(tenantId: number, documentId: number): Promise<LiveLockRow | undefined> {
    const [row] = await this.tx.query(this.liveLock(tenantId, documentId));
    return row;
  }

  /**
   * A new open lock, or undefined when the document has one already: a conflict on
   * document_locks_one_open does nothing (a 23505 would abort the transaction).
   */
  async insertLock(lock: {
    tenantId: number;
    documentId: number;
    tokenDigest: Buffer;
    credentialRef: string;
    ttlMinutes: number;
  }): Promise<{ expires_at: Date } | undefined> {
    const { tenantId, documentId, tokenDigest, credentialRef, ttlMinutes } = lock;
    const [row] = await this.tx.query(sql<{ expires_at: Date }>`
      INSERT INTO document_locks (tenant_id, document_id, token_digest, credential_ref, expires_at)
      VALUES (${tenantId}, ${documentId}, ${tokenDigest}, ${credentialRef},
              now() + make_interval(mins => ${ttlMinutes}))
      ON CONFLICT (document_id) WHERE released_at IS NULL DO NOTHING
      RETURNING expires_at`);
    return row;
  }

  /** Releases the open lock `lockId` as checked in; undefined when it is no longer open. */
  async checkIn(tenantId: number, lockId: number): Promise<{ released_at: Date } | undefined> {
    const [row] = await this.tx.query(sql<{ released_at: Date }>`
      UPDATE document_locks SET released_at = now(), release_reason = 'checked_in'
       WHERE id = ${lockId} AND tenant_id = ${tenantId} AND released_at IS NULL
       RETURNING released_at`);
    return row;
  }

  /** Releases the document's expired open lock, if any, as expired at its expiry. */
  releaseExpiredOf(tenantId: number, documentId: number): Promise<ExpiredLockRow[]> {
    return this.tx.query(sql<ExpiredLockRow>`
      UPDATE document_locks SET released_at = expires_at, release_reason = 'expired'
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId}
         AND released_at IS NULL AND expires_at <= now()
       RETURNING document_id, expires_at`);
  }

  /** Tenants with an expired open lock; as the owner role (`runAsSystem`), across tenants. */
  async tenantsWithExpired(): Promise<number[]> {
    const rows = await this.tx.query(sql<{ tenant_id: number }>`
      SELECT DISTINCT tenant_id FROM document_locks
       WHERE released_at IS NULL AND expires_at <= now()`);
    return rows.map((r) => r.tenant_id);
  }

  /**
   * Releases a batch of the tenant's expired open locks as expired, claimed with SKIP LOCKED so
   * concurrent sweeps share the work instead of repeating it.
   */
  releaseExpiredBatch(tenantId: number): Promise<ExpiredLockRow[]> {
    return this.tx.query(sql<ExpiredLockRow>`
      UPDATE document_locks SET released_at = expires_at, release_reason = 'expired'
       WHERE id IN (SELECT id FROM document_locks
                     WHERE tenant_id = ${tenantId} AND released_at IS NULL AND expires_at <= now()
                     ORDER BY expires_at LIMIT ${SWEEP_BATCH}
                     FOR UPDATE SKIP LOCKED)
       RETURNING document_id, expires_at`);
  }
}
