import { describe, expect, it } from '@jest/globals';
import { dataSourceOptions } from './data-source-options.js';
import { TransactionTimeoutsSubscriber } from './transaction-timeouts.subscriber.js';

const URL = 'postgres://u@127.0.0.1:5432/db';

describe('dataSourceOptions', () => {
  it('sets the statement timeouts for the service, in both pool modes', () => {
    const session = dataSourceOptions(URL, { mode: 'session', size: 2 });
    expect((session.extra as { onConnect?: unknown }).onConnect).toEqual(expect.any(Function));
    const transaction = dataSourceOptions(URL, { mode: 'transaction', size: 2 });
    expect(transaction.subscribers).toEqual([TransactionTimeoutsSubscriber]);
  });

  it('sets none for the migration runner (a migration on a big table may run for minutes)', () => {
    for (const mode of ['session', 'transaction'] as const) {
      const options = dataSourceOptions(URL, { mode, size: 2 }, false);
      expect((options.extra as { onConnect?: unknown }).onConnect).toBeUndefined();
      expect(options.subscribers).toEqual([]);
    }
  });
});
