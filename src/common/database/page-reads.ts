import { Injectable } from '@nestjs/common';
import { callerSignal } from '../concurrency/caller-signal.js';
import { FairSlots } from '../concurrency/fair-slots.js';
import { AppConfig } from '../config/app-config.js';
import type { DriverRow, Held } from '../http/json-text.js';
import { holdPageParts, type PartName } from '../pagination/keyset-page.js';
import type { Statement } from './statement.js';
import { TenantTransactions } from './tenant-transactions.js';

/** A page of more items than this is big (the largest `/projects` page is not). */
export const BIG_PAGE_ITEMS = 100;

/**
 * The reads of list pages. A big page costs PostgreSQL and the event loop a millisecond or more
 * each: read all at once, twenty of them time-slice the cores with the service, and a few wait
 * many times the average (bench/README.md, "A 1,000-row page in pieces"). At most
 * DATABASE_BIG_PAGE_READS big pages are read at once per process, the tenants taking turns (each
 * tenant's in arrival order), so one tenant's flood of big pages delays another's by a turn; the
 * rest of the pool stays free for every other request. A page is as big as its `limit`, the most
 * it may hold, since what it holds is known only once read. A page whose client goes away while it
 * waits is never read (`CallerGoneError`): queueing pages and disconnecting costs nothing.
 */
@Injectable()
export class PageReads {
  private readonly bigPages: FairSlots<number>;

  constructor(
    private readonly tx: TenantTransactions,
    config: AppConfig,
  ) {
    this.bigPages = new FairSlots(config.DATABASE_BIG_PAGE_READS);
  }

  /**
   * `statement`, a page of at most `items` rows (its `limit`), read as `readOnce` reads, its part
   * columns held (`holdPageParts`) as the driver answers them.
   */
  read<R extends DriverRow<R>>(
    tenantId: number,
    items: number,
    statement: Statement<R>,
  ): Promise<Held<R, PartName>[]> {
    const read = () => this.tx.readOnce(tenantId, statement, holdPageParts);
    // inside a transaction the read holds a connection already: it must not wait for a slot
    if (items <= BIG_PAGE_ITEMS || this.tx.insideTransaction()) return read();
    return this.bigPages.run(tenantId, read, callerSignal);
  }

  /** Big pages waiting for their turn now, and those whose client left while they waited. */
  turns(): { waiting: number; left: number } {
    return { waiting: this.bigPages.waiting, left: this.bigPages.left };
  }
}
