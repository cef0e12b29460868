import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CREDENTIAL_GENERATION } from '../../common/database/schema-constants.js';
import { fragment, sql, type Statement } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { Plan } from '../tenancy/plans.js';
import type { ApiClient } from './entities/api-client.entity.js';
import type { PersonalAccessToken } from './entities/personal-access-token.entity.js';

/** A bearer credential with what its principal is made of. */
export interface PrincipalRow {
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

export interface ClientRow {
  id: number;
  tenant_id: number;
  secret_digest: Buffer;
  scopes: string[];
  allowed_ips: string[];
  generation: string;
}

export type NewClient = Pick<
  ApiClient,
  'tenantId' | 'clientId' | 'name' | 'secretDigest' | 'scopes' | 'allowedIps'
>;

export type NewPat = Pick<
  PersonalAccessToken,
  'tenantId' | 'name' | 'tokenDigest' | 'scopes' | 'allowedIps' | 'expiresAt'
>;

export interface NewAccessToken {
  tenantId: number;
  clientId: number;
  tokenDigest: Buffer;
  scopes: string[];
  expiresAt: Date;
  /** Stored only while `credential_generation` is still this. */
  generation: number;
}

const GENERATION = fragment(`${CREDENTIAL_GENERATION} AS generation`);

const OVERRIDES =
  fragment(`(SELECT json_agg(json_build_object('entitlement', o.entitlement, 'granted', o.granted))
    FROM tenant_entitlement_overrides o WHERE o.tenant_id = ten.id) AS overrides`);

/**
 * Client secrets, access tokens and PATs (all kept as digests). Runs as the owner role: a
 * credential is looked up before its tenant is known.
 */
/** What `client list` shows of a client. */
export interface ClientListRow {
  client_id: string;
  name: string;
  scopes: string[];
  allowed_ips: string[];
  enabled: boolean;
  created_at: Date;
}

/** What `pat list` shows of a personal access token. */
export interface PatListRow {
  pat_id: number;
  name: string;
  scopes: string[];
  allowed_ips: string[];
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A page row of a list: the row and its internal id (the cursor's key, never shown). */
export type Keyed<R> = R & { k: number };

/** Where a client is, found by its public id. */
export interface ClientOwnerRow {
  id: number;
  tenant_id: number;
  enabled: boolean;
}

@Injectable()
export class AuthRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly tx: TenantTransactions,
  ) {}

  /**
   * One round trip per look-up (most requests are answered by the CredentialCache): the token,
   * its client, the tenant's plan and overrides.
   */
  async findAccessToken(tokenDigest: Buffer): Promise<PrincipalRow | undefined> {
    const [row] = await this.rows<PrincipalRow>(sql`
  SELECT t.tenant_id, t.api_client_id AS credential_id, t.scopes, c.allowed_ips, ten.plan,
    t.expires_at, ${GENERATION}, ${OVERRIDES}
  FROM access_tokens t
  JOIN api_clients c ON c.id = t.api_client_id AND c.enabled
  JOIN tenants ten ON ten.id = t.tenant_id
  WHERE t.token_digest = ${tokenDigest} AND t.revoked_at IS NULL AND t.expires_at > now()`);
    return row;
  }

  async findPat(tokenDigest: Buffer): Promise<PrincipalRow | undefined> {
    const [row] = await this.rows<PrincipalRow>(sql`
  SELECT p.tenant_id, p.id AS credential_id, p.scopes, p.allowed_ips, ten.plan,
    p.expires_at, ${GENERATION}, ${OVERRIDES}
  FROM personal_access_tokens p
  JOIN tenants ten ON ten.id = p.tenant_id
  WHERE p.token_digest = ${tokenDigest} AND p.revoked_at IS NULL AND p.expires_at > now()`);
    return row;
  }

  /** An enabled client by its public id. */
  async findClient(clientId: string): Promise<ClientRow | undefined> {
    const [row] = await this.rows<ClientRow>(
      sql`SELECT id, tenant_id, secret_digest, scopes, allowed_ips,
                ${GENERATION}
           FROM api_clients WHERE client_id = ${clientId} AND enabled`,
    );
    return row;
  }

  /**
   * Stores an access token unless a credential change has committed since `generation` (compared
   * in the INSERT itself: no extra round trip, no window). Whether it was stored.
   */
  async insertAccessToken(token: NewAccessToken): Promise<boolean> {
    const { tenantId, clientId, tokenDigest, scopes, expiresAt, generation } = token;
    const inserted = await this.rows(
      sql`INSERT INTO access_tokens (tenant_id, api_client_id, token_digest, scopes, expires_at)
       SELECT ${tenantId}, ${clientId}, ${tokenDigest}, ${scopes}, ${expiresAt} WHERE ${fragment(CREDENTIAL_GENERATION)} = ${generation}
       RETURNING 1`,
    );
    return inserted.length === 1;
  }

  /** A tenant's API clients, oldest first: never a secret or its digest. */
  listClients(tenantId: number): Promise<ClientListRow[]> {
    return this.rows<ClientListRow>(
      sql`SELECT client_id, name, scopes, allowed_ips, enabled, created_at
       FROM api_clients WHERE tenant_id = ${tenantId} ORDER BY id`,
    );
  }

  /** A tenant's personal access tokens, oldest first: never a token or its digest. */
  listPats(tenantId: number): Promise<PatListRow[]> {
    return this.rows<PatListRow>(
      sql`SELECT id AS pat_id, name, scopes, allowed_ips, expires_at, revoked_at, created_at
       FROM personal_access_tokens WHERE tenant_id = ${tenantId} ORDER BY id`,
    );
  }

  /** At most `limit` of a tenant's clients after the id `after`, oldest first; never a secret. */
  pageClients(tenantId: number, after: number, limit: number): Promise<Keyed<ClientListRow>[]> {
    return this.rows<Keyed<ClientListRow>>(
      sql`SELECT id AS k, client_id, name, scopes, allowed_ips, enabled, created_at
       FROM api_clients WHERE tenant_id = ${tenantId} AND id > ${after} ORDER BY id LIMIT ${limit}`,
    );
  }

  /** At most `limit` of a tenant's PATs after the id `after`, oldest first; never a token. */
  pagePats(tenantId: number, after: number, limit: number): Promise<Keyed<PatListRow>[]> {
    return this.rows<Keyed<PatListRow>>(
      sql`SELECT id AS k, id AS pat_id, name, scopes, allowed_ips, expires_at, revoked_at, created_at
       FROM personal_access_tokens WHERE tenant_id = ${tenantId} AND id > ${after}
       ORDER BY id LIMIT ${limit}`,
    );
  }

  /** The tenant of a client, enabled or not. */
  async clientOwner(clientId: string): Promise<ClientOwnerRow | undefined> {
    const [row] = await this.rows<ClientOwnerRow>(
      sql`SELECT id, tenant_id, enabled FROM api_clients WHERE client_id = ${clientId}`,
    );
    return row;
  }

  /** The tenant of a personal access token. */
  async patOwner(patId: number): Promise<{ tenant_id: number } | undefined> {
    const [row] = await this.rows<{ tenant_id: number }>(
      sql`SELECT tenant_id FROM personal_access_tokens WHERE id = ${patId}`,
    );
    return row;
  }

  /**
   * Replaces an enabled client's secret digest and, with `revokeTokens`, revokes its live access
   * tokens, in one transaction: the client as it was found (undefined when there is none; a
   * disabled one is left as it is). The UPDATE fires the credential-change trigger, so every
   * cache forgets the old secret when this commits.
   */
  async replaceClientSecret(
    clientId: string,
    secretDigest: Buffer,
    revokeTokens: boolean,
  ): Promise<(ClientOwnerRow & { tokens_revoked: number }) | undefined> {
    return this.db.transaction(async (m) => {
      const find = sql`SELECT id, tenant_id, enabled FROM api_clients WHERE client_id = ${clientId} FOR UPDATE`;
      const [client]: ClientOwnerRow[] = await m.query(find.text, find.values);
      if (!client?.enabled) return client && { ...client, tokens_revoked: 0 };
      const replace = sql`UPDATE api_clients SET secret_digest = ${secretDigest}, updated_at = now() WHERE id = ${client.id}`;
      await m.query(replace.text, replace.values);
      let revoked = 0;
      if (revokeTokens) {
        const revoke = sql`UPDATE access_tokens SET revoked_at = now() WHERE api_client_id = ${client.id} AND revoked_at IS NULL`;
        const [, affected]: [unknown, number] = await m.query(revoke.text, revoke.values);
        revoked = affected;
      }
      return { ...client, tokens_revoked: revoked };
    });
  }

  /** The new client's id (in the current system transaction, if any: `fixture apply`). */
  async insertClient(client: NewClient): Promise<number> {
    const [row] = await this.tx.ownerQuery(sql<{ id: number }>`
      INSERT INTO api_clients (tenant_id, client_id, name, secret_digest, scopes, allowed_ips, enabled)
      VALUES (${client.tenantId}, ${client.clientId}, ${client.name}, ${client.secretDigest},
              ${client.scopes}::text[], ${client.allowedIps}::text[], true)
      RETURNING id`);
    return row!.id;
  }

  /** Disables a client and revokes its tokens, in one transaction; the client, if it exists. */
  async disableClient(clientId: string): Promise<{ id: number; tenant_id: number } | undefined> {
    return this.db.transaction(async (m) => {
      const disable = sql`UPDATE api_clients SET enabled = false, updated_at = now() WHERE client_id = ${clientId} RETURNING id, tenant_id`;
      // TypeORM answers an UPDATE with [rows, affected]
      const [rows]: [Array<{ id: number; tenant_id: number }>, number] = await m.query(
        disable.text,
        disable.values,
      );
      const client = rows[0];
      if (!client) return undefined;
      const revoke = sql`UPDATE access_tokens SET revoked_at = now() WHERE api_client_id = ${client.id} AND revoked_at IS NULL`;
      await m.query(revoke.text, revoke.values);
      return client;
    });
  }

  /** The new PAT's id (in the current system transaction, if any). */
  async insertPat(pat: NewPat): Promise<number> {
    const [row] = await this.tx.ownerQuery(sql<{ id: number }>`
      INSERT INTO personal_access_tokens
        (tenant_id, name, token_digest, scopes, allowed_ips, expires_at, revoked_at)
      VALUES (${pat.tenantId}, ${pat.name}, ${pat.tokenDigest}, ${pat.scopes}::text[],
              ${pat.allowedIps}::text[], ${pat.expiresAt}, NULL)
      RETURNING id`);
    return row!.id;
  }

  /** Revokes a PAT, keeping an earlier revocation's time; undefined when there is no such PAT. */
  async revokePat(
    patId: number,
  ): Promise<{ id: number; tenant_id: number; revoked_at: Date } | undefined> {
    const revoke = sql`UPDATE personal_access_tokens SET revoked_at = COALESCE(revoked_at, now())
       WHERE id = ${patId} RETURNING id, tenant_id, revoked_at`;
    const [rows]: [Array<{ id: number; tenant_id: number; revoked_at: Date }>, number] =
      await this.db.query(revoke.text, revoke.values);
    return rows[0];
  }

  /**
   * Deletes at most `batch` access tokens expired or revoked more than `graceSeconds` ago (rows
   * another sweeper holds skipped), in the current transaction; how many.
   */
  async pruneAccessTokens(graceSeconds: number, batch: number): Promise<number> {
    const [row] = await this.tx.query(sql<{ n: number }>`WITH d AS (
         DELETE FROM access_tokens WHERE id IN (
           SELECT id FROM access_tokens
            WHERE expires_at < now() - make_interval(secs => ${graceSeconds})
               OR revoked_at < now() - make_interval(secs => ${graceSeconds})
            LIMIT ${batch}
            FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS n FROM d`);
    return row!.n;
  }

  private rows<R>(statement: Statement<R>): Promise<R[]> {
    return this.db.query(statement.text, statement.values);
  }
}
