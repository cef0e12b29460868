import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { digest, digestsEqual, isWellFormedToken, mintToken } from '../../common/crypto/tokens.js';
import { CREDENTIAL_GENERATION } from '../../common/database/schema-constants.js';
import { CredentialCache } from '../../common/database/credential-cache.js';
import { effectiveEntitlements, type Plan } from '../../common/access/entitlements.js';
import { ApiClient } from './entities/api-client.entity.js';
import type { Principal } from '../../common/access/principal.js';
import { isScope, type Scope } from '../../common/access/scopes.js';

interface PrincipalRow {
  tenant_id: number;
  credential_id: number;
  scopes: string[];
  allowed_ips: string[];
  plan: Plan;
  overrides: Array<{ entitlement: string; granted: boolean }> | null;
  expires_at: Date;
  /** bigint: a string from the driver */
  generation: string;
}

interface ClientRow {
  id: number;
  tenant_id: number;
  secret_digest: Buffer;
  scopes: string[];
  allowed_ips: string[];
  generation: string;
}

/** Compared against when there is no client: the same work as a wrong secret of a real one. */
const NO_CLIENT_DIGEST = digest(mintToken('gcs'));

const OVERRIDES = `(SELECT json_agg(json_build_object('entitlement', o.entitlement, 'granted', o.granted))
    FROM tenant_entitlement_overrides o WHERE o.tenant_id = ten.id) AS overrides`;

/** One round trip per look-up (most requests are answered by the CredentialCache): the token, its client, the tenant's plan and overrides. */
const ACCESS_TOKEN_LOOKUP = `
  SELECT t.tenant_id, t.api_client_id AS credential_id, t.scopes, c.allowed_ips, ten.plan,
    t.expires_at, ${CREDENTIAL_GENERATION} AS generation, ${OVERRIDES}
  FROM access_tokens t
  JOIN api_clients c ON c.id = t.api_client_id AND c.enabled
  JOIN tenants ten ON ten.id = t.tenant_id
  WHERE t.token_digest = $1 AND t.revoked_at IS NULL AND t.expires_at > now()`;

const PAT_LOOKUP = `
  SELECT p.tenant_id, p.id AS credential_id, p.scopes, p.allowed_ips, ten.plan,
    p.expires_at, ${CREDENTIAL_GENERATION} AS generation, ${OVERRIDES}
  FROM personal_access_tokens p
  JOIN tenants ten ON ten.id = p.tenant_id
  WHERE p.token_digest = $1 AND p.revoked_at IS NULL AND p.expires_at > now()`;

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
    @InjectDataSource() private readonly db: DataSource,
    private readonly cache: CredentialCache,
  ) {}

  /**
   * Resolves a bearer token to its principal; null for anything unknown, expired or revoked.
   * `fresh`: from the database even if the cache knows it (re-verification of a stale request).
   */
  async authenticate(token: string, { fresh = false } = {}): Promise<Principal | null> {
    const kind = isWellFormedToken(token, 'gat')
      ? 'client'
      : isWellFormedToken(token, 'gpat')
        ? 'pat'
        : null;
    if (!kind) return null;
    const tokenDigest = digest(token);
    const lookUp = async () => {
      const rows: PrincipalRow[] = await this.db.query(
        kind === 'client' ? ACCESS_TOKEN_LOOKUP : PAT_LOOKUP,
        [tokenDigest],
      );
      const row = rows[0];
      return row
        ? { principal: toPrincipal(kind, row), expiresAt: row.expires_at.getTime() }
        : null;
    };
    const found = fresh
      ? await lookUp()
      : await this.cache.get(`${kind}:${tokenDigest.toString('base64')}`, lookUp);
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
    const lookUp = async () => {
      const rows: ClientRow[] = await this.db.query(
        `SELECT id, tenant_id, secret_digest, scopes, allowed_ips,
                ${CREDENTIAL_GENERATION} AS generation
           FROM api_clients WHERE client_id = $1 AND enabled`,
        [clientId],
      );
      return { client: rows[0] ?? null, expiresAt: Number.POSITIVE_INFINITY };
    };
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
    // the generation is compared in the INSERT itself: no extra round trip, no window
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO access_tokens (tenant_id, api_client_id, token_digest, scopes, expires_at)
       SELECT $1, $2, $3, $4, $5 WHERE ${CREDENTIAL_GENERATION} = $6
       RETURNING 1`,
      [client.tenantId, client.id, digest(token), [...scopes], expiresAt, client.generation],
    );
    return inserted.length === 1 ? { token, expiresAt } : null;
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
    const saved = await this.db.getRepository(ApiClient).save({
      tenantId: input.tenantId,
      clientId,
      name: input.name,
      secretDigest: digest(clientSecret),
      scopes: [...input.scopes],
      allowedIps: [...input.allowedIps],
      enabled: true,
    });
    return { id: saved.id, clientId, clientSecret };
  }
}
