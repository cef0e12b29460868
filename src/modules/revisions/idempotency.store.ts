import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository } from './repository/idempotency-keys.repository.js';
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

/**
 * Idempotency keys in PostgreSQL, so every replica sees them. `claim` runs first in the request's
 * own transaction and inserts the key row: a concurrent request with the same key blocks on the
 * primary key until the first commits (then replays its stored response) or rolls back (then
 * proceeds itself). So one key yields one effect, and a failed request leaves no trace: only a
 * committed success is remembered.
 */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  /** Must run inside `TenantTransactions.run(scope.tenantId, …)`. */
  async claim(scope: IdempotencyScope, requestHash: string): Promise<IdempotencyClaim> {
    if (await this.keys.insertKey(scope, requestHash)) return { replay: false };
    const row = await this.keys.findKey(scope);
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
  complete(scope: IdempotencyScope, status: number, body: Record<string, unknown>): Promise<void> {
    return this.keys.completeKey(scope, status, body);
  }
}
