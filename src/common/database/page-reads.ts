import { Injectable } from '@nestjs/common';
import { FifoSlots } from '../concurrency/fifo-slots.js';
import { AppConfig } from '../config/app-config.js';
import type { Statement } from './statement.js';
import { TenantTransactions } from './tenant-transactions.js';

/** A page of more items than this is big (the largest `/projects` page is not). */
export const BIG_PAGE_ITEMS = 100;

/**
 * The reads of list pages. A big page costs PostgreSQL and the event loop a millisecond or more
 * each: read all at once, twenty of them time-slice the cores with the service, and a few wait
 * many times the average (bench/README.md, "A 1,000-row page in pieces"). At most
 * DATABASE_BIG_PAGE_READS big pages are read at once per process, in arrival order; the rest of
 * the pool stays free for every other request, of this tenant and of the others.
 */
@Injectable()
export class PageReads {
  private readonly bigPages: FifoSlots;

  constructor(
    private readonly tx: TenantTransactions,
    config: AppConfig,
  ) {
    this.bigPages = new FifoSlots(config.DATABASE_BIG_PAGE_READS);
  }

  /** `statement`, a page of at most `items` rows (its `limit`), read as `readOnce` reads. */
  read<R>(tenantId: number, items: number, statement: Statement<R>): Promise<R[]> {
    if (items <= BIG_PAGE_ITEMS) return this.tx.readOnce(tenantId, statement);
    return this.bigPages.run(() => this.tx.readOnce(tenantId, statement));
  }
}
