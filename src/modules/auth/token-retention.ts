import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

/**
 * Deletes access tokens that expired or were revoked more than a grace period ago, one batch per
 * call (the oldest rows first, rows another sweeper holds skipped). Such a token can no longer
 * authenticate anything, and the token endpoint adds a row per request.
 */
@Injectable()
export class TokenRetention {
  constructor(private readonly tx: TenantTransactions) {}

  /** Rows deleted (at most `batch`). */
  async pruneBatch(graceSeconds: number, batch: number): Promise<number> {
    return this.tx.runAsSystem(async () => {
      const [, count]: [unknown, number] = await this.tx.manager.query(
        `DELETE FROM access_tokens WHERE id IN (
           SELECT id FROM access_tokens
            WHERE expires_at < now() - make_interval(secs => $1)
               OR revoked_at < now() - make_interval(secs => $1)
            LIMIT $2
            FOR UPDATE SKIP LOCKED)`,
        [graceSeconds, batch],
      );
      return count;
    });
  }
}
