import type { ClientBase as PgClient } from 'pg';
import type { OpeningRoundTrip, Rows } from './opening-round-trip.js';
import { PLATFORM_ROLE } from './schema-constants.js';
import type { Sql } from './statement.js';
import { type PooledConnection, rollback } from './transaction-connection.js';
import { MAX_REOPEN } from './transaction-scope.js';

/** What opening a transaction needs of TenantTransactions. */
export interface Opener {
  connection(): Promise<PooledConnection>;
  /** Statements sent right after START TRANSACTION, before anything else. */
  opening: readonly string[];
  round: OpeningRoundTrip;
}

/**
 * Opens a transaction in one round trip — for a tenant: `START; SET LOCAL ROLE; EXECUTE <pin
 * tenant>; EXECUTE <each of calls>`; for the owner (`tenantId` null) START and the opening, as
 * PLATFORM_ROLE and read-only when `across` — and hands `run` the connection and the rows of
 * `calls`. A tenant opening an opening check finds stale is rolled back, refreshed and reopened
 * (at most MAX_REOPEN times) before any work.
 */
export async function openTransaction<T>(
  opener: Opener,
  tenantId: number | null,
  calls: readonly Sql[],
  run: (client: PgClient, release: (broken?: unknown) => void, read: Rows[]) => Promise<T>,
  across: boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const [client, release] = await opener.connection();
    let read: Rows[] = [];
    let refreshes: Array<() => Promise<void>> = [];
    if (tenantId === null) {
      const opening = across
        ? ['START TRANSACTION READ ONLY', ...opener.opening, `SET LOCAL ROLE ${PLATFORM_ROLE}`]
        : ['START TRANSACTION', ...opener.opening];
      try {
        await client.query(opening.join('; '));
      } catch (err) {
        release(await rollback(client));
        throw err;
      }
    } else {
      const [pinned, ...rows] = await opener.round.send(client, release, tenantId, calls, false);
      refreshes = opener.round.refreshes(pinned);
      read = rows;
    }
    if (attempt <= MAX_REOPEN && refreshes.length > 0) {
      // nothing done yet; the connection goes back first, since a refresh may need its own
      release(await rollback(client));
      for (const refresh of refreshes) await refresh();
      continue;
    }
    return run(client, release, read);
  }
}
