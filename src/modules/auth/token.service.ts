import { Injectable } from '@nestjs/common';
import { OAuthError } from '../../common/http/oauth-error.js';
import { textProblem } from '../../common/http/text.js';
import { CredentialsService, type VerifiedClient } from './credentials.service.js';
import { ipAllowed } from './ip-allowlist.js';
import { isScope, type Scope, SCOPES } from '../../common/access/scopes.js';
import type { AuditLocals } from '../audit/audited.decorator.js';

export const TTL_MIN = 300;
export const TTL_MAX = 86_400;
export const TTL_DEFAULT = 3600;
/** Issuing races a credential change at most this often before giving up (a burst of changes). */
const MAX_ISSUE_ATTEMPTS = 3;

/** What the token endpoint needs of an HTTP request. */
export interface TokenRequest {
  /** The parsed body: an object for JSON and form bodies, anything else otherwise. */
  body: unknown;
  /** The body came as `application/x-www-form-urlencoded` (every value is a string there). */
  form: boolean;
  authorization: string | undefined;
  /** The caller's address as the HTTP platform sees it (TRUST_PROXY decides). */
  ip: string | undefined;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
  basic: boolean;
}

type Params = Partial<Record<'grant_type' | 'client_id' | 'client_secret' | 'scope', string>> & {
  ttl?: string | number;
};

const invalidRequest = (description: string): OAuthError =>
  new OAuthError(400, 'invalid_request', description);

/** One answer for every client-authentication failure, so none of them can be told apart. */
function invalidClient(basic: boolean): OAuthError {
  return new OAuthError(
    401,
    'invalid_client',
    'client authentication failed',
    basic ? { 'WWW-Authenticate': 'Basic realm="api"' } : {},
  );
}

/**
 * RFC 6749 §3.1: parameters without a value count as omitted, unknown ones are ignored, and none
 * may appear twice (a repeated form field arrives as an array and is refused here).
 */
function readParams(body: unknown): Params {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object or a form');
  }
  const source = body as Record<string, unknown>;
  const params: Params = {};
  for (const name of ['grant_type', 'client_id', 'client_secret', 'scope'] as const) {
    const value = source[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw invalidRequest(`${name} must be a single string`);
    const problem = textProblem(value);
    if (problem) throw invalidRequest(`${name} ${problem}`);
    params[name] = value;
  }
  const ttl = source['ttl'];
  if (ttl !== undefined && ttl !== null && ttl !== '') {
    if (typeof ttl !== 'string' && typeof ttl !== 'number') {
      throw invalidRequest(`ttl must be an integer between ${TTL_MIN} and ${TTL_MAX}`);
    }
    params.ttl = ttl;
  }
  return params;
}

/** `application/x-www-form-urlencoded` decoding, as RFC 6749 §2.3.1 asks of Basic credentials. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** Basic credentials from the Authorization header; null when the header uses another scheme. */
function readBasic(authorization: string | undefined): ClientCredentials | null {
  const match = /^Basic\s+(\S*)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  const encoded = match[1] ?? '';
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)
    ? Buffer.from(encoded, 'base64').toString('utf8')
    : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) return { clientId: undefined, secret: undefined, basic: true };
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return {
    clientId: clientId || undefined,
    secret: secret || undefined,
    basic: true,
  };
}

function readTtl(value: string | number | undefined, form: boolean): number {
  if (value === undefined) return TTL_DEFAULT;
  const ttl =
    typeof value === 'number'
      ? value
      : form && /^\d{1,9}$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isInteger(ttl) || ttl < TTL_MIN || ttl > TTL_MAX) {
    throw invalidRequest(`ttl must be an integer between ${TTL_MIN} and ${TTL_MAX}`);
  }
  return ttl;
}

function readScopes(value: string | undefined): Set<string> | null {
  if (value === undefined) return null;
  const names = value.split(' ').filter((s) => s !== '');
  if (names.length === 0) return null;
  return new Set(names);
}

/**
 * The client-credentials grant (RFC 6749 §4.4) of `POST /oauth/token`. The request is checked
 * before any database look-up; every failure to authenticate the client is the same 401.
 */
@Injectable()
export class OAuthTokenService {
  constructor(private readonly credentials: CredentialsService) {}

  async issue(request: TokenRequest, audit: AuditLocals = {}): Promise<TokenResponse> {
    const params = readParams(request.body);
    const basic = readBasic(request.authorization);
    if (basic && params.client_secret !== undefined) {
      throw invalidRequest(
        'use one client authentication method: HTTP Basic or the body, not both',
      );
    }
    if (basic?.clientId && params.client_id !== undefined && params.client_id !== basic.clientId) {
      throw invalidRequest('client_id in the body differs from the HTTP Basic client id');
    }
    if (params.grant_type === undefined) throw invalidRequest('grant_type is required');
    if (params.grant_type !== 'client_credentials') {
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        'the only supported grant_type is client_credentials',
      );
    }
    const ttl = readTtl(params.ttl, request.form);
    const requested = readScopes(params.scope);

    const creds = basic ?? {
      clientId: params.client_id,
      secret: params.client_secret,
      basic: false,
    };
    // the first attempt may be answered from the cache; should a credential change have
    // committed since (the insert sees it), the client is verified again from the database
    for (let attempt = 1; attempt <= MAX_ISSUE_ATTEMPTS; attempt++) {
      const client = await this.authenticateClient(creds, request.ip, attempt > 1);
      audit.tenantId = client.tenantId;
      audit.credentialRef = `client:${client.id}`;
      const granted = this.grantScopes(client, requested);
      const issued = await this.credentials.issueAccessToken(client, granted, ttl);
      if (issued) {
        return {
          access_token: issued.token,
          token_type: 'Bearer',
          expires_in: ttl,
          scope: granted.join(' '),
        };
      }
    }
    throw new Error('credentials kept changing while a token was issued');
  }
  private async authenticateClient(
    creds: ClientCredentials,
    ip: string | undefined,
    fresh: boolean,
  ): Promise<VerifiedClient> {
    if (!creds.clientId || !creds.secret) throw invalidClient(creds.basic);
    const client = await this.credentials.verifyClient(creds.clientId, creds.secret, { fresh });
    if (!client || !ipAllowed(ip, client.allowedIps)) throw invalidClient(creds.basic);
    return client;
  }

  /** All of the client's scopes, or exactly the requested ones when every one of them is its. */
  private grantScopes(client: VerifiedClient, requested: Set<string> | null): Scope[] {
    const own = new Set<Scope>(client.scopes);
    if (!requested) return SCOPES.filter((s) => own.has(s));
    const outside = [...requested].filter((s) => !isScope(s) || !own.has(s));
    if (outside.length) {
      throw new OAuthError(
        400,
        'invalid_scope',
        `scope not granted to this client: ${outside.join(' ')}`,
      );
    }
    return SCOPES.filter((s) => requested.has(s));
  }
}
