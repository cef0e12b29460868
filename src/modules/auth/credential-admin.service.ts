import { Injectable } from '@nestjs/common';
import { digest, mintToken } from '../../common/crypto/tokens.js';
import {
  type FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import { EntitlementRequiredError } from '../tenancy/tenancy.errors.js';
import { TenancyService } from '../tenancy/tenancy.service.js';
import { AuthRepository, type ClientListRow, type PatListRow } from './auth.repository.js';
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
 * What a company administrator does with credentials (through the CLI): clients and personal
 * access tokens, each secret shown once and kept as a digest. Owner role, like every admin path.
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

  /** Disables a client at once: its secret stops working and its tokens are revoked. */
  async disableClient(clientId: string): Promise<{ client_id: string; enabled: false }> {
    const disabled = await this.repository.disableClient(clientId);
    if (disabled === undefined) throw new NotFoundError('client');
    // the database notifies every process; this one need not wait for its own notification
    this.cache.invalidate();
    return { client_id: clientId, enabled: false };
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

  /** Revokes a PAT at once; revoking it again keeps the first revocation time. */
  async revokePat(patId: number): Promise<{ pat_id: number; revoked_at: string }> {
    const row = await this.repository.revokePat(patId);
    if (!row) throw new NotFoundError('personal access token');
    this.cache.invalidate();
    return { pat_id: row.id, revoked_at: row.revoked_at.toISOString() };
  }
}
