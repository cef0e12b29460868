/** A statement stuck behind a dead or overloaded database fails instead of hanging a request. */
export const STATEMENT_TIMEOUT_MS = 15_000;
/** A transaction its client forgot (a crashed caller) gives its locks back. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * The timeouts as statements rather than startup parameters, which PgBouncer refuses ("unsupported
 * startup parameter") in every pool mode. `LOCAL`: for the current transaction only, which is
 * what a transaction pooler allows; each transaction the service opens sends them first.
 */
export function timeoutStatements(scope: 'SESSION' | 'LOCAL'): string[] {
  return [
    `SET ${scope} statement_timeout = ${STATEMENT_TIMEOUT_MS}`,
    `SET ${scope} idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
  ];
}
