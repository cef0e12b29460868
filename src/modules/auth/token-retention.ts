import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { AuthRepository } from './auth.repository.js';

/**
 * Deletes access tokens that expired or were revoked more than a grace period ago, one batch per
 * call (the oldest rows first, rows another sweeper holds skipped). Such a token can no longer
 * authenticate anything, and the token endpoint adds a row per request.
 */
@Injectable()
export class TokenRetention {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: AuthRepository,
  ) {}

  /** Rows deleted (at most `batch`). */
  async pruneBatch(graceSeconds: number, batch: number): Promise<number> {
    return this.tx.runAsSystem(() => this.repository.pruneAccessTokens(graceSeconds, batch));
  }
}
