import { Injectable } from '@nestjs/common';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { EventData } from '../events/event-catalog.js';
import type { EventType } from '../events/event-types.js';
import { TenancyService } from '../tenancy/tenancy.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { TestingRepository } from './testing.repository.js';

/**
 * What the testing kit needs of a running service beyond the administration commands: emptying
 * the tenants' data between tests and publishing any catalog event. Reached only through the
 * admin socket, and only when the service runs with `TESTING_COMMANDS=true` (the kit sets it):
 * nothing of it is on HTTP.
 */
@Injectable()
export class TestingService {
  constructor(
    private readonly repository: TestingRepository,
    private readonly tx: TenantTransactions,
    private readonly outbox: WebhookOutbox,
    private readonly tenancy: TenancyService,
  ) {}

  /**
   * Removes the projects, documents, credentials, webhooks, events and deliveries of `tenantIds`,
   * or of every tenant when none is given; the tenants themselves and
   * the audit trail stay. Test suites sharing one service each reset their own tenants.
   */
  async reset(tenantIds: readonly number[] = []): Promise<{ tables: string[]; ms: number }> {
    const started = performance.now();
    const tables = await this.repository.tenantTables();
    await this.repository.deleteTenantsData(tables, tenantIds.length ? tenantIds : 'all');
    return { tables, ms: Math.round(performance.now() - started) };
  }

  /**
   * Publishes an event of `type` through the outbox, as the service does for a real change: one
   * delivery per active webhook of the tenant subscribed to it.
   */
  async emit<T extends EventType>(
    tenantId: number,
    type: T,
    data: EventData<T>,
  ): Promise<{ event_id: string }> {
    await this.tenancy.view(tenantId);
    const eventId = await this.tx.run(tenantId, () => this.outbox.publish(tenantId, type, data));
    return { event_id: eventId };
  }
}
