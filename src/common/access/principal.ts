import type { Entitlement } from './entitlements.js';
import type { Scope } from './scopes.js';

/** Who is calling: resolved once per request from the bearer token. */
export interface Principal {
  tenantId: number;
  credential: {
    kind: 'client' | 'pat';
    id: number;
    /** Stable, secret-free reference for audit, idempotency and ownership: `client:3`, `pat:7`. */
    ref: string;
  };
  scopes: ReadonlySet<Scope>;
  allowedIps: readonly string[];
  entitlements: ReadonlySet<Entitlement>;
  /**
   * `credential_generation` as of the look-up this principal was read with; the transaction layer
   * re-verifies a request whose principal is older than the newest credential change.
   */
  generation: number;
}
