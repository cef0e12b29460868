import type { INestApplication } from '@nestjs/common';
import { CredentialAdminService } from '../../src/modules/auth/credential-admin.service.js';
import { SCOPES, type Scope } from '../../src/common/access/scopes.js';
import { rememberSecret } from './secrets.js';

export interface TestPat {
  patId: number;
  token: string;
  auth: string;
}

/** A personal access token, created the way an administrator does (entitlement checks included). */
export async function createPat(
  app: INestApplication,
  tenantId: number,
  options: { scopes?: readonly Scope[]; allowedIps?: readonly string[]; name?: string } = {},
): Promise<TestPat> {
  const created = await app.get(CredentialAdminService).createPat(tenantId, {
    name: options.name ?? 'test pat',
    scopes: options.scopes ?? SCOPES,
    allowedIps: options.allowedIps ?? [],
  });
  rememberSecret(created.token);
  return { patId: created.pat_id, token: created.token, auth: `Bearer ${created.token}` };
}

/** `Authorization: Basic` as RFC 6749 §2.3.1 builds it: id and secret form-urlencoded first. */
export function basicAuth(clientId: string, secret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString('base64')}`;
}
