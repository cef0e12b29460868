import { Injectable } from '@nestjs/common';
import { digest, digestsEqual, isWellFormedToken, mintToken } from '../../common/crypto/tokens.js';
import { effectiveEntitlements } from '../tenancy/plans.js';
import { AuthRepository, type PrincipalRow } from './auth.repository.js';
import { CredentialCache } from './credential-cache.js';
import { BearerFailuresService } from '../rate-limit/bearer-failures.service.js';
import type { Principal } from '../../common/access/principal.js';
import { isScope, type Scope } from '../../common/access/scopes.js';

/** Compared against when there is no client: the same work as a wrong secret of a real one. */
const NO_CLIENT_DIGEST = digest(mintToken('gcs'));

function toPrincipal(kind: 'client' | 'pat', row: PrincipalRow): Principal {
  return {
    tenantId: row.tenant_id,
    credential: { kind, id: row.credential_id, ref: `${kind}:${row.credential_id}` },
    scopes: new Set(row.scopes.filter(isScope)),
    allowedIps: row.allowed_ips,
    entitlements: effectiveEntitlements(row.plan, row.overrides ?? []),
    generation: Number(row.generation),
  };
}

export interface VerifiedClient {
  id: number;
  tenantId: number;
  clientId: string;
  scopes: Scope[];
  allowedIps: string[];
  /** `credential_generation` as of the look-up the client was verified with. */
  generation: number;
}

/**
 * Credential store: client secrets, access tokens and PATs, all kept as SHA-256 digests. Runs as
 * the owner role because a credential is looked up before its tenant is known.
 */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly cache: CredentialCache,
    private readonly failures: BearerFailuresService,
  ) {}

  /** The answer each request's bearer credential got (`authenticate`'s `request`). */
  private readonly perRequest = new WeakMap<
    object,
    { token: string; answer: Promise<Principal | null> }
  >();

  /**
   * Resolves a bearer token to its principal; null for anything unknown, expired or revoked.
   * `fresh`: from the database even if the cache knows it (re-verification of a stale request).
   * `caller`: the address it was sent from; a look-up the cache cannot answer counts against that
   * address's failed look-ups when it finds nothing, and is refused (429) past their limit.
   * `request`: the request it came with; the body admission and the guard both ask, and the
   * second gets the first's answer (one look-up, one failure counted, per request).
   */
  authenticate(
    token: string,
    options: { fresh?: boolean; caller?: string; request?: object } = {},
  ): Promise<Principal | null> {
    const { request, fresh = false } = options;
    if (!request || fresh) return this.resolve(token, options);
    const asked = this.perRequest.get(request);
    if (asked?.token === token) return asked.answer;
    const answer = this.resolve(token, options);
    this.perRequest.set(request, { token, answer });
    return answer;
  }

  private async resolve(
    token: string,
    { fresh = false, caller }: { fresh?: boolean; caller?: string },
  ): Promise<Principal | null> {
    const kind = isWellFormedToken(token, 'gat')
      ? 'client'
      : isWellFormedToken(token, 'gpat')
        ? 'pat'
        : null;
    if (!kind) return null;
    const tokenDigest = digest(token);
    const key = `${kind}:${tokenDigest.toString('base64')}`;
    const fromDatabase = async () => {
      const row =
        kind === 'client'
          ? await this.repository.findAccessToken(tokenDigest)
          : await this.repository.findPat(tokenDigest);
      return row
        ? { principal: toPrincipal(kind, row), expiresAt: row.expires_at.getTime() }
        : null;
    };
    const found = fresh
      ? await fromDatabase()
      : await this.cache.get(key, () => this.failures.lookUp(caller, key, fromDatabase));
    // an entry outlives its token by at most the cache age; the token's own expiry is exact
    return found && found.expiresAt > Date.now() ? found.principal : null;
  }

  /**
   * Checks a client's id and secret; null for an unknown or disabled client or a wrong secret.
   * `fresh`: from the database even if the cache knows the client.
   *
   * An unknown or disabled id costs what a known one does, so the answer time tells nothing about
   * which ids exist (issue 18 item 5): its look-up is cached as well (as "no such client"), and the
   * secret is digested and compared against a stand-in digest. (Creating a client does not empty
   * the cache, but its id is minted then, at random: no one can have been told "no such client"
   * for it before; the cache age bounds even that.)
   */
  async verifyClient(
    clientId: string,
    secret: string,
    { fresh = false } = {},
  ): Promise<VerifiedClient | null> {
    if (!/^gci_[0-9A-Za-z]{49}$/.test(clientId) || !isWellFormedToken(secret, 'gcs')) return null;
    const lookUp = async () => ({
      client: (await this.repository.findClient(clientId)) ?? null,
      expiresAt: Number.POSITIVE_INFINITY,
    });
    const found = fresh ? await lookUp() : await this.cache.get(`gci:${clientId}`, lookUp);
    const client = found?.client ?? null;
    const matches = digestsEqual(client?.secret_digest ?? NO_CLIENT_DIGEST, digest(secret));
    if (!client || !matches) return null;
    return {
      id: client.id,
      tenantId: client.tenant_id,
      clientId,
      scopes: client.scopes.filter(isScope),
      allowedIps: client.allowed_ips,
      generation: Number(client.generation),
    };
  }

  /**
   * Mints an access token for a verified client; only its digest is stored. Null, and nothing
   * stored, when a credential change has committed since the client was verified (it may have
   * been disabled a moment ago): verify it again from the database and retry.
   */
  async issueAccessToken(
    client: VerifiedClient,
    scopes: readonly Scope[],
    ttlSeconds: number,
  ): Promise<{ token: string; expiresAt: Date } | null> {
    const token = mintToken('gat');
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    const stored = await this.repository.insertAccessToken({
      tenantId: client.tenantId,
      clientId: client.id,
      tokenDigest: digest(token),
      scopes: [...scopes],
      expiresAt,
      generation: client.generation,
    });
    return stored ? { token, expiresAt } : null;
  }

  /** Registers a client; the secret is returned here only and stored as a digest. */
  async createClient(input: {
    tenantId: number;
    name: string;
    scopes: readonly Scope[];
    allowedIps: readonly string[];
  }): Promise<{ id: number; clientId: string; clientSecret: string }> {
    const clientId = mintToken('gci');
    const clientSecret = mintToken('gcs');
    const id = await this.repository.insertClient({
      tenantId: input.tenantId,
      clientId,
      name: input.name,
      secretDigest: digest(clientSecret),
      scopes: [...input.scopes],
      allowedIps: [...input.allowedIps],
    });
    return { id, clientId, clientSecret };
  }
}
