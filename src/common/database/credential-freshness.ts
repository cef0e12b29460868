import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How the request's credential was verified, for the transaction layer to hold it to account.
 * The authentication guard fills it in; `TenantTransactions` compares `generation` with the
 * database's `credential_generation` in the round trip that opens each tenant transaction, and
 * calls `reverify` when the database has moved on — so a revocation, plan change or entitlement
 * change committed before a request touches data always applies to it, even when this process's
 * cache has not heard of it yet.
 */
export interface VerifiedCredential {
  /** `credential_generation` as of the look-up the credential was verified with. */
  generation: number;
  /**
   * Verifies the credential again from the database, with every check of the guard; throws its
   * 401/403 when it no longer passes. Resolves to the generation of that look-up.
   */
  reverify(): Promise<number>;
}

interface RequestCredentialScope {
  verified?: VerifiedCredential;
}

const storage = new AsyncLocalStorage<RequestCredentialScope>();

/**
 * The HTTP platform's `beforeHandler` hook: gives every request a scope the guard can fill in. The
 * rest of the request (guards, handler, its transactions) runs inside `next`, so inside the scope.
 */
export function openCredentialScope(next: () => void): void {
  storage.run({}, next);
}

/** Records how this request's credential was verified (the guard, once it has passed). */
export function recordVerifiedCredential(verified: VerifiedCredential): void {
  const scope = storage.getStore();
  if (scope) scope.verified = verified;
}

/** The request's verified credential; undefined outside requests (CLI, workers) or when public. */
export function verifiedCredential(): VerifiedCredential | undefined {
  return storage.getStore()?.verified;
}
