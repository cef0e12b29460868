import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CREDENTIAL_GENERATION } from '../../common/database/schema-constants.js';
import { fragment } from '../../common/database/statement.js';
import {
  type OpeningCheck,
  TenantTransactions,
} from '../../common/database/tenant-transactions.js';
import { TenancyService } from '../tenancy/tenancy.service.js';
import { CredentialCache } from './credential-cache.js';

/**
 * How the request's credential was verified, for the transaction layer to hold it to account.
 * The authentication guard fills it in; the opening check below compares `generation` with the
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

/**
 * Reads `credential_generation` with the tenant pin. Stale: the request's credential was verified
 * before a credential change that has committed since (possible only in the milliseconds before
 * the change's notification reaches this process's cache); refreshing verifies it again from the
 * database, which throws the guard's 401/403 if it no longer passes.
 */
export const CREDENTIAL_FRESHNESS: OpeningCheck = {
  select: fragment(`${CREDENTIAL_GENERATION} AS generation`),
  stale(row) {
    const verified = verifiedCredential();
    const generation = row['generation'];
    return (
      verified !== undefined && generation !== undefined && Number(generation) > verified.generation
    );
  },
  async refresh(row) {
    const verified = verifiedCredential();
    if (!verified) return;
    // never go backwards: a look-up cannot answer an older generation than the one just read
    verified.generation = Math.max(await verified.reverify(), Number(row['generation']));
  },
};

/**
 * Hooks credential freshness into the layers that know nothing of credentials: the check of the
 * round trip that opens each tenant transaction, and tenancy's plan and entitlement changes,
 * which reach every process by notification and this one at once.
 */
@Injectable()
export class CredentialFreshness implements OnModuleInit {
  constructor(
    private readonly transactions: TenantTransactions,
    private readonly tenancy: TenancyService,
    private readonly cache: CredentialCache,
  ) {}

  onModuleInit(): void {
    this.transactions.registerOpeningCheck(CREDENTIAL_FRESHNESS);
    this.tenancy.onEntitlementsChanged(() => this.cache.invalidate());
  }
}
