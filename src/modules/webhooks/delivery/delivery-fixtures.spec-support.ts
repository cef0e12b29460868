import type { ClaimedRow } from '../repository/delivery-claims.repository.js';

/** A claimed row for the unit tier: webhook 7 of tenant 1, version `v1`, a first attempt. */
export function claimedRow(id: number, overrides: Partial<ClaimedRow> = {}): ClaimedRow {
  return {
    id: String(id),
    tenant_id: 1,
    webhook_id: 7,
    chain: 0,
    turn: String(id),
    attempts: 0,
    first_attempt_wait: 0.01,
    lease: `lease-${id}`,
    event_id: `evt_${id}`,
    body: '{}',
    endpoint_url: 'https://receiver.example/hook',
    secret_sealed: Buffer.alloc(0),
    previous_secret_sealed: null,
    webhook_version: 'v1',
    trace_parent: null,
    ...overrides,
  };
}

/** A promise with its resolve function outside, to let a test decide when a step ends. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((ok) => {
    resolve = ok;
  });
  return { promise, resolve };
}
