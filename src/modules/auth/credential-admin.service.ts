import { Injectable } from '@nestjs/common';
import { digest, mintToken } from '../../common/crypto/tokens.js';
import {
  type FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import { EntitlementRequiredError } from '../tenancy/tenancy.errors.js';
import { TenancyService } from '../tenancy/tenancy.service.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import { ClientDisabledError } from './auth.errors.js';
import {
  AuthRepository,
  type ClientListRow,
  type Keyed,
  type PatListRow,
} from './auth.repository.js';
import { CredentialCache } from './credential-cache.js';
import { CredentialsService } from './credentials.service.js';
import { normaliseCidr } from './ip-allowlist.js';
import { isScope, type Scope, SCOPES } from '../../common/access/scopes.js';

export const PAT_DEFAULT_DAYS = 90;
export const PAT_MAX_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface CredentialInput {
  name: string;
  /** Space-separated or already split. */
  scopes: string | readonly string[];
  allowedIps?: readonly string[];
}

export interface CreatedClient {
  client_id: string;
  client_secret: string;
  scopes: Scope[];
  allowed_ips: string[];
}

export interface CreatedPat {
  pat_id: number;
  token: string;
  expires_at: string;
}

export interface RotatedClientSecret {
  tenant_id: number;
  client_id: string;
  client_secret: string;
  /** How many of the client's live access tokens were revoked (0 unless asked). */
  tokens_revoked: number;
}

/** A page query of the platform's lists. */
export interface PageQuery {
  cursor?: string;
  limit: number;
}

/** One page from `limit + 1` keyed rows: the internal key leaves the rows, into the cursor. */
function pageOf<R>(
  rows: Keyed<R>[],
  limit: number,
  identity: { tenantId: number; list: string },
): CursorPage<R> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(({ k: _, ...row }) => row as R),
    next_cursor: rows.length > limit && last ? Cursor.encode(identity, [last.k]) : null,
  };
}

interface Checked {
  name: string;
  scopes: Scope[];
  allowedIps: string[];
}

/** Validates what an administrator asked for; every problem at once, as field errors. */
export function checkCredentialInput(input: CredentialInput): Checked {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) {
    errors.push({ field: 'name', message: 'must be 1..200 characters' });
  }
  const names = typeof input.scopes === 'string' ? input.scopes.split(/\s+/) : [...input.scopes];
  const requested = names.map((s) => s.trim()).filter((s) => s !== '');
  const unknown = requested.filter((s) => !isScope(s));
  if (requested.length === 0) {
    errors.push({ field: 'scopes', message: `at least one of ${SCOPES.join(', ')}` });
  } else if (unknown.length) {
    errors.push({
      field: 'scopes',
      message: `unknown scope ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`,
    });
  }
  const allowedIps: string[] = [];
  for (const cidr of input.allowedIps ?? []) {
    const normalised = normaliseCidr(cidr);
    if (!normalised) {
      errors.push({ field: 'allowed_ips', message: `not a CIDR (IPv4 or IPv6): ${cidr}` });
    } else if (!allowedIps.includes(normalised)) {
      allowedIps.push(normalised);
    }
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return { name, scopes: SCOPES.filter((s) => requested.includes(s)), allowedIps };
}

/**
 * What a company administrator does with credentials (the CLI and the platform API call these
 * same methods): clients and personal access tokens, each secret shown once and kept as a digest.
 * Owner role, like every admin path.
 */
@Injectable()
export class CredentialAdminService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly credentials: CredentialsService,
    private readonly tenancy: TenancyService,
    private readonly cache: CredentialCache,
  ) {}

  async createClient(tenantId: number, input: CredentialInput): Promise<CreatedClient> {
    const checked = checkCredentialInput(input);
    const entitlements = await this.tenancy.entitlementsOf(tenantId);
    if (checked.allowedIps.length && !entitlements.has('auth.ip_allowlist')) {
      throw new EntitlementRequiredError('auth.ip_allowlist');
    }
    const created = await this.credentials.createClient({ tenantId, ...checked });
    return {
      client_id: created.clientId,
      client_secret: created.clientSecret,
      scopes: checked.scopes,
      allowed_ips: checked.allowedIps,
    };
  }

  /** A tenant's clients (never a secret); not_found for an unknown tenant. */
  async listClients(tenantId: number): Promise<{ data: ClientListRow[] }> {
    await this.tenancy.view(tenantId);
    return { data: await this.repository.listClients(tenantId) };
  }

  /** A tenant's personal access tokens (never a token); not_found for an unknown tenant. */
  async listPats(tenantId: number): Promise<{ data: PatListRow[] }> {
    await this.tenancy.view(tenantId);
    return { data: await this.repository.listPats(tenantId) };
  }

  /** One page of a tenant's clients, oldest first (never a secret); 404 for an unknown tenant. */
  async pageClients(tenantId: number, query: PageQuery): Promise<CursorPage<ClientListRow>> {
    const identity = { tenantId, list: 'platform.clients' };
    const [after = 0] = Cursor.decode(identity, query.cursor) ?? [];
    await this.tenancy.view(tenantId);
    const rows = await this.repository.pageClients(tenantId, after, query.limit + 1);
    return pageOf(rows, query.limit, identity);
  }

  /** One page of a tenant's PATs, oldest first (never a token); 404 for an unknown tenant. */
  async pagePats(tenantId: number, query: PageQuery): Promise<CursorPage<PatListRow>> {
    const identity = { tenantId, list: 'platform.pats' };
    const [after = 0] = Cursor.decode(identity, query.cursor) ?? [];
    await this.tenancy.view(tenantId);
    const rows = await this.repository.pagePats(tenantId, after, query.limit + 1);
    return pageOf(rows, query.limit, identity);
  }

  /** The tenant a client belongs to (enabled or not); 404 for an unknown client. */
  async tenantOfClient(clientId: string): Promise<number> {
    const owner = await this.repository.clientOwner(clientId);
    if (!owner) throw new NotFoundError('client');
    return owner.tenant_id;
  }

  /** The tenant a personal access token belongs to; 404 for an unknown one. */
  async tenantOfPat(patId: number): Promise<number> {
    const owner = await this.repository.patOwner(patId);
    if (!owner) throw new NotFoundError('personal access token');
    return owner.tenant_id;
  }

  /**
   * Disables a client at once: its secret stops working and its tokens are revoked. With the
   * tenant it belongs to (the CLI prints the rest).
   */
  async disableClient(
    clientId: string,
  ): Promise<{ tenant_id: number; client_id: string; enabled: false }> {
    const disabled = await this.repository.disableClient(clientId);
    if (disabled === undefined) throw new NotFoundError('client');
    // the database notifies every process; this one need not wait for its own notification
    this.cache.invalidate();
    return { tenant_id: disabled.tenant_id, client_id: clientId, enabled: false };
  }

  /**
   * A new secret for an enabled client, returned here only. The old secret stops working when
   * this commits (the credential-change trigger empties every cache). Access tokens already
   * issued stay valid until they expire, unless `revokeTokens`: then they are revoked in the same
   * transaction. 404 for an unknown client, 409 `client_disabled` for a disabled one.
   */
  async rotateClientSecret(
    clientId: string,
    options: { revokeTokens?: boolean } = {},
  ): Promise<RotatedClientSecret> {
    const secret = mintToken('gcs');
    const client = await this.repository.replaceClientSecret(
      clientId,
      digest(secret),
      options.revokeTokens === true,
    );
    if (!client) throw new NotFoundError('client');
    if (!client.enabled) throw new ClientDisabledError(clientId);
    this.cache.invalidate();
    return {
      tenant_id: client.tenant_id,
      client_id: clientId,
      client_secret: secret,
      tokens_revoked: client.tokens_revoked,
    };
  }

  async createPat(
    tenantId: number,
    input: CredentialInput & { expiresInDays?: number },
  ): Promise<CreatedPat> {
    const checked = checkCredentialInput(input);
    const days = input.expiresInDays ?? PAT_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > PAT_MAX_DAYS) {
      throw new ValidationFailedError([
        { field: 'expires_in_days', message: `must be an integer in 1..${PAT_MAX_DAYS}` },
      ]);
    }
    const entitlements = await this.tenancy.entitlementsOf(tenantId);
    if (!entitlements.has('auth.pat')) throw new EntitlementRequiredError('auth.pat');
    if (checked.allowedIps.length && !entitlements.has('auth.ip_allowlist')) {
      throw new EntitlementRequiredError('auth.ip_allowlist');
    }
    const token = mintToken('gpat');
    const expiresAt = new Date(Date.now() + days * DAY_MS);
    const patId = await this.repository.insertPat({
      tenantId,
      name: checked.name,
      tokenDigest: digest(token),
      scopes: checked.scopes,
      allowedIps: checked.allowedIps,
      expiresAt,
    });
    return { pat_id: patId, token, expires_at: expiresAt.toISOString() };
  }

  /**
   * Revokes a PAT at once; revoking it again keeps the first revocation time. With the tenant it
   * belongs to (the CLI prints the rest).
   */
  async revokePat(
    patId: number,
  ): Promise<{ tenant_id: number; pat_id: number; revoked_at: string }> {
    const row = await this.repository.revokePat(patId);
    if (!row) throw new NotFoundError('personal access token');
    this.cache.invalidate();
    return { tenant_id: row.tenant_id, pat_id: row.id, revoked_at: row.revoked_at.toISOString() };
  }
}
