import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import type { EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import { APP_ROLE } from '../../../migrations/1764000000000-initial-schema.js';

/**
 * The only way tenant data is touched. Opens (or joins) a transaction, drops to the application
 * role, which row-level security applies to, and pins `app.tenant_id`, so even a query that forgets
 * its tenant filter sees and writes only this tenant's rows. Queries still filter on tenant: the
 * policy is the second wall, not the only one.
 */
@Injectable()
export class TenantTransactions {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  run<T>(tenantId: number, work: () => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
      return Promise.reject(new Error('tenant transaction without a valid tenant id'));
    }
    return this.txHost.withTransaction(async () => {
      // one round trip; the id is a validated integer, so inlining it is safe
      await this.txHost.tx.query(
        `SET LOCAL ROLE ${APP_ROLE}; SELECT set_config('app.tenant_id', '${tenantId}', true)`,
      );
      return work();
    });
  }

  /** Runs work as the owner role, across tenants: workers, sweepers and the admin CLI only. */
  runAsSystem<T>(work: () => Promise<T>): Promise<T> {
    return this.txHost.withTransaction(work);
  }

  /** The entity manager of the current transaction (or a plain one outside of any). */
  get manager(): EntityManager {
    return this.txHost.tx;
  }

  repo<E extends ObjectLiteral>(entity: EntityTarget<E>): Repository<E> {
    return this.txHost.tx.getRepository(entity);
  }
}
