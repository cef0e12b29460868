import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { IdempotencyKeyReusedError } from './revisions.errors.js';

/** Who used a key where: a key means something only for one credential on one route. */
export interface IdempotencyScope {
  tenantId: number;
  credentialRef: string;
  /** The concrete route, e.g. `POST /documents/7/external-revisions`. */
  route: string;
  key: string;
}

export type IdempotencyClaim =
  { replay: false } | { replay: true; status: number; body: Record<string, unknown> };

/** How long a key is remembered; an older one is forgotten and may be used afresh. */
const RETENTION = '24 hours';

/**
 * Idempotency keys in PostgreSQL, so every replica sees them. `claim` runs first in the request's
 * own transaction and inserts the key row: a concurrent request with the same key blocks on the
 * primary key until the first commits (then replays its stored response) or rolls back (then
 * proceeds itself). So one key yields one effect, and a failed request leaves no trace: only a
 * committed success is remembered.
 */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly tx: TenantTransactions) {}

  /** Must run inside `TenantTransactions.run(scope.tenantId, …)`. */
  async claim(scope: IdempotencyScope, requestHash: string): Promise<IdempotencyClaim> {
    const claimed: unknown[] = await this.tx.manager.query(
      `INSERT INTO idempotency_keys
         (tenant_id, credential_ref, route, key, request_hash, response_status, response_body)
       VALUES ($1, $2, $3, $4, $5, 0, 'null'::json)
       ON CONFLICT (tenant_id, credential_ref, route, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, response_status = 0,
             response_body = 'null'::json, created_at = now()
         WHERE idempotency_keys.created_at < now() - interval '${RETENTION}'
       RETURNING 1`,
      [scope.tenantId, scope.credentialRef, scope.route, scope.key, requestHash],
    );
    if (claimed.length) return { replay: false };
    const rows: Array<{ request_hash: string; response_status: number; response_body: unknown }> =
      await this.tx.manager.query(
        `SELECT request_hash, response_status, response_body FROM idempotency_keys
          WHERE tenant_id = $1 AND credential_ref = $2 AND route = $3 AND key = $4`,
        [scope.tenantId, scope.credentialRef, scope.route, scope.key],
      );
    const row = rows[0];
    // the conflicting row was committed by the time the insert returned, so it is final
    if (!row || row.response_status === 0) {
      throw new Error('idempotency key row vanished or is incomplete after a conflict');
    }
    if (row.request_hash !== requestHash) throw new IdempotencyKeyReusedError();
    return {
      replay: true,
      status: row.response_status,
      body: row.response_body as Record<string, unknown>,
    };
  }

  /** Records the response of a claimed key, in the same transaction as the effect. */
  async complete(
    scope: IdempotencyScope,
    status: number,
    body: Record<string, unknown>,
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE idempotency_keys SET response_status = $5, response_body = $6::json
        WHERE tenant_id = $1 AND credential_ref = $2 AND route = $3 AND key = $4`,
      [scope.tenantId, scope.credentialRef, scope.route, scope.key, status, JSON.stringify(body)],
    );
  }
}
