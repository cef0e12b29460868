import { Injectable } from '@nestjs/common';
import { fragment, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import type { IdempotencyScope } from '../idempotency.store.js';

export interface IdempotencyKeyRow {
  request_hash: string;
  response_status: number;
  response_body: unknown;
}

/** How long a key is remembered; an older one is forgotten and may be used afresh. */
const RETENTION = fragment(`interval '24 hours'`);

/** `idempotency_keys`; every method runs in the caller's tenant transaction. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * Inserts the key, unanswered (status 0), or takes over a forgotten one; false when a
   * remembered one exists. A concurrent insert of the same key waits for the other to end.
   */
  async insertKey(scope: IdempotencyScope, requestHash: string): Promise<boolean> {
    const { tenantId, credentialRef, route, key } = scope;
    const claimed = await this.tx.query(sql`INSERT INTO idempotency_keys
         (tenant_id, credential_ref, route, key, request_hash, response_status, response_body)
       VALUES (${tenantId}, ${credentialRef}, ${route}, ${key}, ${requestHash}, 0, 'null'::json)
       ON CONFLICT (tenant_id, credential_ref, route, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, response_status = 0,
             response_body = 'null'::json, created_at = now()
         WHERE idempotency_keys.created_at < now() - ${RETENTION}
       RETURNING 1`);
    return claimed.length > 0;
  }

  async findKey(scope: IdempotencyScope): Promise<IdempotencyKeyRow | undefined> {
    const { tenantId, credentialRef, route, key } = scope;
    const [row] = await this.tx.query(sql<IdempotencyKeyRow>`
        SELECT request_hash, response_status, response_body FROM idempotency_keys
         WHERE tenant_id = ${tenantId} AND credential_ref = ${credentialRef} AND route = ${route}
           AND key = ${key}`);
    return row;
  }

  /** Records the response of the claimed key. */
  async completeKey(
    scope: IdempotencyScope,
    status: number,
    body: Record<string, unknown>,
  ): Promise<void> {
    const { tenantId, credentialRef, route, key } = scope;
    await this.tx.query(sql`UPDATE idempotency_keys
          SET response_status = ${status}, response_body = ${JSON.stringify(body)}::json
        WHERE tenant_id = ${tenantId} AND credential_ref = ${credentialRef} AND route = ${route}
          AND key = ${key}`);
  }
}
