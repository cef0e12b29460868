import { Injectable } from '@nestjs/common';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';

/** The readiness probe's one statement, on the pool, outside any tenant transaction. */
@Injectable()
export class HealthRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /** Resolves once the database answered a trivial query. */
  async ping(): Promise<void> {
    await this.tx.ownerQuery(sql`SELECT 1`);
  }
}
