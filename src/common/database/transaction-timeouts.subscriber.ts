import {
  type EntitySubscriberInterface,
  EventSubscriber,
  type TransactionStartEvent,
} from 'typeorm';
import { timeoutStatements } from './statement-timeouts.js';

/**
 * In transaction pool mode no session setting survives, so TypeORM's own transactions (the admin
 * paths: tenants, credentials, the CLI) set the timeouts LOCAL as they open, like the tenant
 * transactions do in their opening round trip.
 */
@EventSubscriber()
export class TransactionTimeoutsSubscriber implements EntitySubscriberInterface {
  async afterTransactionStart(event: TransactionStartEvent): Promise<void> {
    await event.queryRunner.query(timeoutStatements('LOCAL').join('; '));
  }
}
