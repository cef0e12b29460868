import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { digest, isWellFormedToken, mintToken } from '../src/common/crypto/tokens.js';
import { onFirstStart } from '../src/first-start.js';
import { CredentialAdminService } from '../src/modules/auth/credential-admin.service.js';
import { SCOPES, type Scope } from '../src/common/access/scopes.js';
import type { Entitlement } from '../src/common/access/entitlements.js';
import { TenancyService } from '../src/modules/tenancy/tenancy.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { basicAuth, createPat } from './support/auth-factories.js';
import { withMessage } from './support/expect-message.js';
import {
  createCaller,
  createClient,
  createTenant,
  issueToken,
  type TestClient,
} from './support/factories.js';
import { type ApiResponse, call } from './support/http.js';
import { createDocument, createProject } from './support/read-factories.js';

interface TokenCall {
  form?: Record<string, string>;
  json?: unknown;
  raw?: string;
  contentType?: string;
  authorization?: string;
  xff?: string;
  headers?: Record<string, string>;
}

/** Every secret and token this file sees: none may ever show up in a log line. */
const secrets: string[] = [];

function remember<T extends string>(secret: T): T {
  secrets.push(secret);
  return secret;
}

function postToken(baseUrl: string, c: TokenCall): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...c.headers };
  let body: string | undefined;
  if (c.form) {
    body = new URLSearchParams(c.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (c.json !== undefined) {
    body = JSON.stringify(c.json);
    headers['content-type'] = 'application/json';
  } else if (c.raw !== undefined) {
    body = c.raw;
    headers['content-type'] = c.contentType ?? 'application/x-www-form-urlencoded';
  }
  if (c.authorization) headers.authorization = c.authorization;
  if (c.xff) headers['x-forwarded-for'] = c.xff;
  return call(baseUrl, 'POST', '/oauth/token', { rawBody: body, headers });
}

function expectOAuthError(res: ApiResponse, status: 400 | 401, error: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error } });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  expect(Object.keys(res.body as object).sort()).toEqual(['error', 'error_description']);
  expect(typeof res.body.error_description).toBe('string');
}

function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

const WEBHOOK_BODY = {
  name: 'auth test hook',
  endpoint_url: 'https://hooks.example.com/grc',
  events: ['*'],
};

describe('authentication and authorisation', () => {
  let t: TestApp;
  let db: DataSource;
  let tenancy: TenancyService;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '1' });
    db = t.app.get(DataSource);
    tenancy = t.app.get(TenancyService);
  });
  afterAll(async () => {
    await t.close();
  });

  async function newClient(
    options: { scopes?: readonly Scope[]; allowedIps?: readonly string[]; tenantId?: number } = {},
  ): Promise<TestClient> {
    const tenantId = options.tenantId ?? (await createTenant(t.app, 'enterprise'));
    const client = await createClient(t.app, tenantId, options);
    remember(client.clientSecret);
    return client;
  }

  async function caller(options: Parameters<typeof createCaller>[1] = {}) {
    const c = await createCaller(t.app, options);
    remember(c.token);
    remember(c.client.clientSecret);
    return c;
  }

  describe('POST /oauth/token', () => {
    it('issues a token for credentials in a JSON body, with no-store caching', async () => {
      const client = await newClient({ scopes: ['projects:read', 'documents:read'] });
      const res = await postToken(t.baseUrl, {
        json: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(Object.keys(res.body as object).sort()).toEqual([
        'access_token',
        'expires_in',
        'scope',
        'token_type',
      ]);
      expect(res.body).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'projects:read documents:read',
      });
      const token = remember(res.body.access_token as string);
      expect(token).toMatch(/^gat_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(token, 'gat')).toBe(true);
      const projects = await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` });
      expect(projects.status).toBe(200);
    });

    it('issues a token for credentials in a form body and for HTTP Basic', async () => {
      const client = await newClient();
      const inBody = await postToken(t.baseUrl, {
        form: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
      });
      expect(inBody.status).toBe(200);
      expect(inBody.body.scope).toBe(SCOPES.join(' '));
      remember(inBody.body.access_token as string);

      const basic = await postToken(t.baseUrl, {
        form: { grant_type: 'client_credentials' },
        authorization: basicAuth(client.clientId, client.clientSecret),
      });
      expect(basic.status).toBe(200);
      expect(basic.body.token_type).toBe('Bearer');
      remember(basic.body.access_token as string);

      // a JSON body with Basic works too, and client_id may repeat the Basic one
      const jsonBasic = await postToken(t.baseUrl, {
        json: { grant_type: 'client_credentials', client_id: client.clientId },
        authorization: basicAuth(client.clientId, client.clientSecret),
      });
      expect(jsonBasic.status).toBe(200);
      remember(jsonBasic.body.access_token as string);
    });

    it('ignores unknown parameters (RFC 6749 §3.2)', async () => {
      const client = await newClient();
      const res = await postToken(t.baseUrl, {
        form: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          audience: 'whatever',
          resource: 'https://example.com',
        },
      });
      expect(res.status).toBe(200);
      remember(res.body.access_token as string);
    });

    describe('ttl', () => {
      let client: TestClient;
      beforeAll(async () => {
        client = await newClient();
      });
      const json = (ttl: unknown) => ({
        json: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          ...(ttl === undefined ? {} : { ttl }),
        },
      });
      const form = (ttl: string) => ({
        form: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          ttl,
        },
      });

      it.each([
        [undefined, 3600],
        [300, 300],
        [86400, 86400],
        [1800, 1800],
      ])('JSON ttl %s gives expires_in %s, stored as the expiry', async (ttl, expected) => {
        const res = await postToken(t.baseUrl, json(ttl));
        expect(res.status).toBe(200);
        expect(res.body.expires_in).toBe(expected);
        const token = remember(res.body.access_token as string);
        const [row] = await db.query<Array<{ seconds: number }>>(
          `SELECT extract(epoch FROM expires_at - created_at)::int AS seconds
           FROM access_tokens WHERE token_digest = $1`,
          [digest(token)],
        );
        expect(Math.abs(row!.seconds - expected)).toBeLessThanOrEqual(2);
      });

      it.each([[299], [86401], ['abc'], ['3600'], [3600.5], [-300], [0], [true], [[3600]]])(
        'JSON ttl %j is 400 invalid_request',
        async (ttl) => {
          expectOAuthError(await postToken(t.baseUrl, json(ttl)), 400, 'invalid_request');
        },
      );

      it('accepts digit strings from a form body', async () => {
        for (const [ttl, expected] of [
          ['300', 300],
          ['86400', 86400],
        ] as const) {
          const res = await postToken(t.baseUrl, form(ttl));
          expect(res.status).toBe(200);
          expect(res.body.expires_in).toBe(expected);
          remember(res.body.access_token as string);
        }
      });

      it.each(['299', '86401', 'abc', '-300', ' 300', '3600.0', '1e3'])(
        'form ttl %j is 400 invalid_request',
        async (ttl) => {
          expectOAuthError(await postToken(t.baseUrl, form(ttl)), 400, 'invalid_request');
        },
      );
    });

    describe('errors', () => {
      let client: TestClient;
      beforeAll(async () => {
        client = await newClient({ scopes: ['projects:read', 'documents:read'] });
      });

      it('missing grant_type is 400 invalid_request', async () => {
        const res = await postToken(t.baseUrl, {
          form: { client_id: client.clientId, client_secret: client.clientSecret },
        });
        expectOAuthError(res, 400, 'invalid_request');
        expect(res.body.error_description).toMatch(/grant_type/);
      });

      it('an empty body is 400 invalid_request', async () => {
        expectOAuthError(await postToken(t.baseUrl, {}), 400, 'invalid_request');
      });

      it.each(['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS'])(
        'grant_type %s is 400 unsupported_grant_type',
        async (grant) => {
          const res = await postToken(t.baseUrl, {
            form: {
              grant_type: grant,
              client_id: client.clientId,
              client_secret: client.clientSecret,
            },
          });
          expectOAuthError(res, 400, 'unsupported_grant_type');
        },
      );

      it('a repeated parameter or a non-string value is 400 invalid_request', async () => {
        const repeated = await postToken(t.baseUrl, {
          raw: `grant_type=client_credentials&grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
        });
        expectOAuthError(repeated, 400, 'invalid_request');
        const numeric = await postToken(t.baseUrl, {
          json: { grant_type: 'client_credentials', client_id: 42, client_secret: 'x' },
        });
        expectOAuthError(numeric, 400, 'invalid_request');
        const array = await postToken(t.baseUrl, { json: [{ grant_type: 'client_credentials' }] });
        expectOAuthError(array, 400, 'invalid_request');
      });

      it('Basic together with a body client_secret is 400 invalid_request', async () => {
        const res = await postToken(t.baseUrl, {
          form: { grant_type: 'client_credentials', client_secret: client.clientSecret },
          authorization: basicAuth(client.clientId, client.clientSecret),
        });
        expectOAuthError(res, 400, 'invalid_request');
      });

      it('a body client_id differing from the Basic one is 400 invalid_request', async () => {
        const other = await newClient();
        const res = await postToken(t.baseUrl, {
          form: { grant_type: 'client_credentials', client_id: other.clientId },
          authorization: basicAuth(client.clientId, client.clientSecret),
        });
        expectOAuthError(res, 400, 'invalid_request');
      });

      it('every client authentication failure is the same 401 invalid_client', async () => {
        const other = await newClient();
        const cases: Array<Record<string, string>> = [
          // unknown client (well formed)
          { client_id: mintToken('gci'), client_secret: mintToken('gcs') },
          // unknown client (garbage)
          { client_id: 'nobody', client_secret: 'nothing' },
          // wrong secret (another client's)
          { client_id: client.clientId, client_secret: other.clientSecret },
          // client_id without a secret
          { client_id: client.clientId },
          // secret without a client_id
          { client_secret: client.clientSecret },
          // no credentials at all
          {},
        ];
        const descriptions = new Set<string>();
        for (const creds of cases) {
          const res = await postToken(t.baseUrl, {
            form: { grant_type: 'client_credentials', ...creds },
          });
          expectOAuthError(res, 401, 'invalid_client');
          expect(res.headers.get('www-authenticate')).toBeNull();
          descriptions.add(res.body.error_description as string);
        }
        expect(descriptions.size).toBe(1);
      });

      it('answers a failed HTTP Basic authentication with WWW-Authenticate: Basic', async () => {
        const other = await newClient();
        for (const authorization of [
          basicAuth(client.clientId, other.clientSecret),
          basicAuth(mintToken('gci'), mintToken('gcs')),
          basicAuth(client.clientId, ''),
          'Basic !!!not-base64!!!',
          `Basic ${Buffer.from('no-colon').toString('base64')}`,
          // a client id that is not valid percent-encoding (was a 500 from the rate limiter)
          `Basic ${Buffer.from('%zz:secret').toString('base64')}`,
          `Basic ${Buffer.from(`${client.clientId}%E0%A4%A:secret`).toString('base64')}`,
        ]) {
          const res = await postToken(t.baseUrl, {
            form: { grant_type: 'client_credentials' },
            authorization,
          });
          expectOAuthError(res, 401, 'invalid_client');
          expect(res.headers.get('www-authenticate')).toBe('Basic realm="api"');
        }
      });

      it('a disabled client is 401 invalid_client, and its tokens stop working', async () => {
        const victim = await newClient();
        const token = remember(await issueToken(t.app, victim));
        expect(
          (await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` })).status,
        ).toBe(200);
        await t.app.get(CredentialAdminService).disableClient(victim.clientId);
        const res = await postToken(t.baseUrl, {
          form: {
            grant_type: 'client_credentials',
            client_id: victim.clientId,
            client_secret: victim.clientSecret,
          },
        });
        expectOAuthError(res, 401, 'invalid_client');
        const after = await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${token}` });
        expectProblem(after, 401, 'invalid_token');
      });

      it('narrows the token to the requested scopes', async () => {
        const res = await postToken(t.baseUrl, {
          form: {
            grant_type: 'client_credentials',
            client_id: client.clientId,
            client_secret: client.clientSecret,
            scope: 'projects:read',
          },
        });
        expect(res.status).toBe(200);
        expect(res.body.scope).toBe('projects:read');
        const auth = `Bearer ${remember(res.body.access_token as string)}`;
        expect((await call(t.baseUrl, 'GET', '/projects', { auth })).status).toBe(200);
        const refused = await call(t.baseUrl, 'GET', '/documents/1', { auth });
        expectProblem(refused, 403, 'insufficient_scope');
      });

      it.each([
        'projects:read webhooks:write',
        'admin',
        'projects:read  documents:read locks:write',
      ])('scope %j outside the client is 400 invalid_scope, never narrowed', async (scope) => {
        const res = await postToken(t.baseUrl, {
          form: {
            grant_type: 'client_credentials',
            client_id: client.clientId,
            client_secret: client.clientSecret,
            scope,
          },
        });
        expectOAuthError(res, 400, 'invalid_scope');
      });

      it('refuses the API problem format on the token endpoint', async () => {
        const res = await postToken(t.baseUrl, { form: { grant_type: 'implicit' } });
        expect(res.headers.get('content-type')).not.toMatch(/problem/);
        expect(res.body.code).toBeUndefined();
      });
    });

    it('a standard OAuth client library (openid-client) gets a token with client_secret_basic', async () => {
      const client = await newClient({ scopes: ['projects:read', 'documents:read'] });
      const sent: Array<{ headers: Record<string, string>; body: string }> = [];
      const config = new oidc.Configuration(
        { issuer: t.baseUrl, token_endpoint: `${t.baseUrl}/api/v1/oauth/token` },
        client.clientId,
        undefined,
        oidc.ClientSecretBasic(client.clientSecret),
      );
      oidc.allowInsecureRequests(config);
      config[oidc.customFetch] = (url, options) => {
        const body = options.body;
        sent.push({
          headers: options.headers,
          body:
            body instanceof URLSearchParams
              ? body.toString()
              : typeof body === 'string'
                ? body
                : '',
        });
        return fetch(url, options);
      };
      const tokens = await oidc.clientCredentialsGrant(config, {
        scope: 'projects:read',
        ttl: '900',
      });
      remember(tokens.access_token);
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.expires_in).toBe(900);
      expect(tokens.scope).toBe('projects:read');
      expect(sent).toHaveLength(1);
      const headers = Object.fromEntries(
        Object.entries(sent[0]!.headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      expect(headers.authorization).toMatch(/^Basic /);
      expect(sent[0]!.body).toContain('grant_type=client_credentials');
      expect(sent[0]!.body).not.toContain('client_secret');
      const res = await call(t.baseUrl, 'GET', '/projects', {
        auth: `Bearer ${tokens.access_token}`,
      });
      expect(res.status).toBe(200);

      const post = new oidc.Configuration(
        { issuer: t.baseUrl, token_endpoint: `${t.baseUrl}/api/v1/oauth/token` },
        client.clientId,
        undefined,
        oidc.ClientSecretPost(client.clientSecret),
      );
      oidc.allowInsecureRequests(post);
      const viaPost = await oidc.clientCredentialsGrant(post);
      remember(viaPost.access_token);
      expect(viaPost.scope).toBe('projects:read documents:read');
      expect(viaPost.expires_in).toBe(3600);

      const wrong = new oidc.Configuration(
        { issuer: t.baseUrl, token_endpoint: `${t.baseUrl}/api/v1/oauth/token` },
        client.clientId,
        undefined,
        oidc.ClientSecretBasic(mintToken('gcs')),
      );
      oidc.allowInsecureRequests(wrong);
      // the library reads the Basic challenge of the 401 and reports it as such
      await expect(oidc.clientCredentialsGrant(wrong)).rejects.toMatchObject({
        name: 'WWWAuthenticateChallengeError',
        status: 401,
        cause: [{ scheme: 'basic', parameters: { realm: 'api' } }],
      });
    });

    describe("Swagger UI's Authorize button (client credentials flow)", () => {
      it('obtains a token with the form request Swagger UI sends, then "Try it out" succeeds', async () => {
        const doc = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as {
          components: {
            securitySchemes: {
              oauth2: { flows: { clientCredentials: { tokenUrl: string; scopes: object } } };
            };
          };
        };
        const flow = doc.components.securitySchemes.oauth2.flows.clientCredentials;
        expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
        // Swagger UI resolves the relative tokenUrl against the page it runs on
        const tokenUrl = new URL(flow.tokenUrl, `${t.baseUrl}/api/v1/docs/`).toString();
        const client = await newClient();

        // swagger-ui 5 authorizeApplication: Basic btoa(id:secret), buildFormData (%20 → +)
        const res = await fetch(tokenUrl, {
          method: 'POST',
          headers: {
            Accept: 'application/json, text/plain, */*',
            'Content-Type': 'application/x-www-form-urlencoded',
            'X-Requested-With': 'XMLHttpRequest',
            Authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
          },
          body: 'grant_type=client_credentials&scope=projects%3Aread+documents%3Aread',
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { access_token: string; scope: string };
        remember(body.access_token);
        expect(body.scope).toBe('projects:read documents:read');

        const tenantId = client.tenantId;
        const projectId = await createProject(t.app, tenantId, { name: 'Tried out' });
        const tryItOut = await call(t.baseUrl, 'GET', '/projects', {
          auth: `Bearer ${body.access_token}`,
          headers: { accept: 'application/json' },
        });
        expect(tryItOut.status).toBe(200);
        expect(tryItOut.body.data.map((p: { projectId: number }) => p.projectId)).toEqual([
          projectId,
        ]);
      });

      it('with no scope ticked (scope omitted) the token carries every scope of the client', async () => {
        const client = await newClient({ scopes: ['webhooks:read', 'projects:read'] });
        const res = await postToken(t.baseUrl, {
          raw: 'grant_type=client_credentials&scope=',
          authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
        });
        expect(res.status).toBe(200);
        expect(res.body.scope).toBe('projects:read webhooks:read');
        remember(res.body.access_token as string);
      });

      it('the variant with client_id and client_secret in the form body', async () => {
        const client = await newClient();
        const res = await fetch(`${t.baseUrl}/api/v1/oauth/token`, {
          method: 'POST',
          headers: {
            Accept: 'application/json, text/plain, */*',
            'Content-Type': 'application/x-www-form-urlencoded',
            'X-Requested-With': 'XMLHttpRequest',
          },
          body: `grant_type=client_credentials&scope=projects%3Aread&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { access_token: string };
        remember(body.access_token);
        const tryItOut = await call(t.baseUrl, 'GET', '/projects', {
          auth: `Bearer ${body.access_token}`,
        });
        expect(tryItOut.status).toBe(200);
      });

      it('documents both body types and the error responses', async () => {
        const doc = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as any;
        const op = doc.paths['/api/v1/oauth/token'].post;
        expect(Object.keys(op.requestBody.content).sort()).toEqual([
          'application/json',
          'application/x-www-form-urlencoded',
        ]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
        expect(op.responses['401'].content['application/json'].schema.$ref).toMatch(
          /OAuthErrorDto$/,
        );
        expect(op.security ?? []).toEqual([]);
      });
    });
  });

  describe('bearer tokens: the error table', () => {
    it('no token: 401 unauthenticated with WWW-Authenticate', async () => {
      const res = await call(t.baseUrl, 'GET', '/projects');
      expectProblem(res, 401, 'unauthenticated');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    });

    it('unknown, malformed, expired and revoked tokens: 401 invalid_token', async () => {
      const expired = await caller();
      const revoked = await caller();
      await db.query(
        `UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE token_digest = $1`,
        [digest(expired.token)],
      );
      await db.query(`UPDATE access_tokens SET revoked_at = now() WHERE token_digest = $1`, [
        digest(revoked.token),
      ]);
      const tampered = `${expired.token.slice(0, -1)}${expired.token.endsWith('0') ? '1' : '0'}`;
      for (const auth of [
        `Bearer ${mintToken('gat')}`,
        `Bearer ${mintToken('gpat')}`,
        `Bearer ${tampered}`,
        'Bearer gat_short',
        `Bearer ${expired.token}`,
        `Bearer ${revoked.token}`,
      ]) {
        const res = await call(t.baseUrl, 'GET', '/projects', { auth });
        expectProblem(res, 401, 'invalid_token');
        expect(res.headers.get('www-authenticate')).toBe(
          'Bearer realm="api", error="invalid_token"',
        );
      }
    });

    it('takes the token from the Authorization header only, never from the query or the body', async () => {
      const c = await caller();
      const other = `Basic ${Buffer.from('x:y').toString('base64')}`;
      // an unknown route: 404 once authenticated, so a 401 shows the guard refused the request
      const tokenInQuery = `/no-such-route?access_token=${encodeURIComponent(c.token)}`;
      // passport-http-bearer falls back to ?access_token= when the header is not Bearer. A header
      // of another scheme carries no bearer token (docs/integrators/errors.md: unauthenticated, and RFC 6750
      // §3.1: no error code for an unsupported method); a Bearer header without a token is invalid
      for (const [auth, code, challenge] of [
        [other, 'unauthenticated', 'Bearer realm="api"'],
        ['Token abc', 'unauthenticated', 'Bearer realm="api"'],
        ['Bearer', 'invalid_token', 'Bearer realm="api", error="invalid_token"'],
      ] as const) {
        const res = await call(t.baseUrl, 'GET', tokenInQuery, { auth });
        expectProblem(res, 401, code);
        expect(res.headers.get('www-authenticate')).toBe(challenge);
        const body = await call(t.baseUrl, 'POST', '/webhooks', {
          auth,
          body: { access_token: c.token, url: 'https://example.com/hook', events: ['*'] },
        });
        expectProblem(body, 401, code);
        expect(body.headers.get('www-authenticate')).toBe(challenge);
      }
      // the same token in the header works
      expect(
        (await call(t.baseUrl, 'GET', '/projects', { auth: `Bearer ${c.token}` })).status,
      ).toBe(200);
    });

    it('takes one or more spaces after the scheme, in any letter case (RFC 6750)', async () => {
      const c = await caller();
      for (const auth of [
        `Bearer  ${c.token}`,
        `Bearer     ${c.token}`,
        `bearer ${c.token}`,
        `BEARER  ${c.token}`,
      ]) {
        const res = await call(t.baseUrl, 'GET', '/projects', { auth });
        expect({ auth: auth.replace(c.token, '<token>'), status: res.status }).toEqual({
          auth: auth.replace(c.token, '<token>'),
          status: 200,
        });
      }
    });

    it('a PAT works as a bearer token until it expires or is revoked', async () => {
      const tenantId = await createTenant(t.app, 'enterprise');
      const pat = await createPat(t.app, tenantId, { scopes: ['projects:read'] });
      remember(pat.token);
      expect(pat.token).toMatch(/^gpat_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(pat.token, 'gpat')).toBe(true);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: pat.auth })).status).toBe(200);
      const noScope = await call(t.baseUrl, 'GET', '/documents/1', { auth: pat.auth });
      expectProblem(noScope, 403, 'insufficient_scope');

      await db.query(
        `UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [pat.patId],
      );
      const expired = await call(t.baseUrl, 'GET', '/projects', { auth: pat.auth });
      expectProblem(expired, 401, 'invalid_token');
      expect(expired.headers.get('www-authenticate')).toBe(
        'Bearer realm="api", error="invalid_token"',
      );

      const other = await createPat(t.app, tenantId, { scopes: ['projects:read'] });
      remember(other.token);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: other.auth })).status).toBe(200);
      const revoked = await t.app.get(CredentialAdminService).revokePat(other.patId);
      expect(revoked.pat_id).toBe(other.patId);
      const after = await call(t.baseUrl, 'GET', '/projects', { auth: other.auth });
      expectProblem(after, 401, 'invalid_token');
    });

    it('a PAT of a tenant without auth.pat: 403 entitlement_required, at once', async () => {
      const tenantId = await createTenant(t.app, 'enterprise');
      const pat = await createPat(t.app, tenantId, { scopes: ['projects:read'] });
      remember(pat.token);
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: pat.auth })).status).toBe(200);
      await tenancy.changeEntitlements(tenantId, [{ entitlement: 'auth.pat', granted: false }]);
      const res = await call(t.baseUrl, 'GET', '/projects', { auth: pat.auth });
      expectProblem(res, 403, 'entitlement_required');
      expect(res.body.entitlement).toBe('auth.pat');
      // a client token of the same tenant is unaffected
      const c = await caller({ tenantId });
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(200);
    });

    it('refuses to create a PAT without auth.pat, or an allowlist without auth.ip_allowlist', async () => {
      const admin = t.app.get(CredentialAdminService);
      const professional = await createTenant(t.app, 'professional');
      await expect(
        admin.createPat(professional, { name: 'p', scopes: 'projects:read' }),
      ).rejects.toMatchObject({ code: 'entitlement_required' });
      const starter = await createTenant(t.app, 'starter');
      await expect(
        admin.createClient(starter, {
          name: 'c',
          scopes: 'projects:read',
          allowedIps: ['10.0.0.0/8'],
        }),
      ).rejects.toMatchObject({ code: 'entitlement_required' });
      const enterprise = await createTenant(t.app, 'enterprise');
      await tenancy.changeEntitlements(enterprise, [
        { entitlement: 'auth.ip_allowlist', granted: false },
      ]);
      await expect(
        admin.createPat(enterprise, {
          name: 'p',
          scopes: 'projects:read',
          allowedIps: ['2001:db8::/32'],
        }),
      ).rejects.toMatchObject({ code: 'entitlement_required' });
    });

    describe('scopes: every scope refuses an endpoint of its kind without it', () => {
      let tenantId: number;
      let readDoc: number;
      let revisionDoc: number;
      let lockDoc: number;
      const ROUTES: Record<Scope, () => { method: string; path: string; body?: unknown }> = {
        'projects:read': () => ({ method: 'GET', path: '/projects' }),
        'documents:read': () => ({ method: 'GET', path: `/documents/${readDoc}` }),
        'revisions:write': () => ({
          method: 'POST',
          path: `/documents/${revisionDoc}/external-revisions`,
          body: { content: { title: 'proposal' } },
        }),
        'locks:write': () => ({
          method: 'POST',
          path: `/documents/${lockDoc}/checkout`,
          body: {},
        }),
        'webhooks:read': () => ({ method: 'GET', path: '/webhooks' }),
        'webhooks:write': () => ({ method: 'POST', path: '/webhooks', body: WEBHOOK_BODY }),
      };

      beforeAll(async () => {
        tenantId = await createTenant(t.app, 'enterprise');
        const projectId = await createProject(t.app, tenantId);
        readDoc = (await createDocument(t.app, tenantId, projectId)).documentId;
        revisionDoc = (await createDocument(t.app, tenantId, projectId)).documentId;
        lockDoc = (await createDocument(t.app, tenantId, projectId)).documentId;
      });

      it.each(SCOPES)('%s', async (scope) => {
        const route = ROUTES[scope]();
        const without = await caller({ tenantId, scopes: SCOPES.filter((s) => s !== scope) });
        const refused = await call(t.baseUrl, route.method, route.path, {
          auth: without.auth,
          body: route.body,
        });
        expectProblem(refused, 403, 'insufficient_scope');
        expect(refused.headers.get('www-authenticate')).toBe(
          `Bearer realm="api", error="insufficient_scope", scope="${scope}"`,
        );

        const only = await caller({ tenantId, scopes: [scope] });
        const allowed = await call(t.baseUrl, route.method, route.path, {
          auth: only.auth,
          body: route.body,
        });
        withMessage(JSON.stringify(allowed.body), () =>
          expect(allowed.status).toBeGreaterThanOrEqual(200),
        );
        withMessage(JSON.stringify(allowed.body), () => expect(allowed.status).toBeLessThan(300));
      });
    });

    describe('entitlements: each refuses an endpoint of its kind without it', () => {
      const CASES: Array<
        [Entitlement, Scope, (doc: number) => { method: string; path: string; body?: unknown }]
      > = [
        ['api.read', 'projects:read', () => ({ method: 'GET', path: '/projects' })],
        ['api.read', 'documents:read', (doc) => ({ method: 'GET', path: `/documents/${doc}` })],
        [
          'api.revisions',
          'revisions:write',
          (doc) => ({
            method: 'POST',
            path: `/documents/${doc}/external-revisions`,
            body: { content: { a: 1 } },
          }),
        ],
        [
          'api.locks',
          'locks:write',
          (doc) => ({ method: 'POST', path: `/documents/${doc}/checkout`, body: {} }),
        ],
        ['api.webhooks', 'webhooks:read', () => ({ method: 'GET', path: '/webhooks' })],
        [
          'api.webhooks',
          'webhooks:write',
          () => ({ method: 'POST', path: '/webhooks', body: WEBHOOK_BODY }),
        ],
      ];

      it.each(CASES)('%s (%s)', async (entitlement, scope, route) => {
        const tenantId = await createTenant(t.app, 'enterprise');
        const projectId = await createProject(t.app, tenantId);
        const { documentId } = await createDocument(t.app, tenantId, projectId);
        const c = await caller({ tenantId, scopes: [scope] });
        const r = route(documentId);
        await tenancy.changeEntitlements(tenantId, [{ entitlement, granted: false }]);
        const refused = await call(t.baseUrl, r.method, r.path, { auth: c.auth, body: r.body });
        expectProblem(refused, 403, 'entitlement_required');
        expect(refused.body.entitlement).toBe(entitlement);
        expect(refused.headers.get('www-authenticate')).toBeNull();

        await tenancy.changeEntitlements(tenantId, [{ entitlement, granted: null }]);
        const allowed = await call(t.baseUrl, r.method, r.path, { auth: c.auth, body: r.body });
        withMessage(JSON.stringify(allowed.body), () => expect(allowed.status).toBeLessThan(300));
      });

      it('the starter plan gets read access only', async () => {
        const tenantId = await createTenant(t.app, 'starter');
        const projectId = await createProject(t.app, tenantId);
        const { documentId } = await createDocument(t.app, tenantId, projectId);
        const c = await caller({ tenantId });
        expect((await call(t.baseUrl, 'GET', '/projects', { auth: c.auth })).status).toBe(200);
        for (const [method, path, body] of [
          ['POST', `/documents/${documentId}/checkout`, {}],
          ['POST', `/documents/${documentId}/external-revisions`, { content: { a: 1 } }],
          ['GET', '/webhooks', undefined],
        ] as const) {
          const res = await call(t.baseUrl, method, path, { auth: c.auth, body });
          expectProblem(res, 403, 'entitlement_required');
        }
      });

      it('a plan change applies at once to a token already issued', async () => {
        const c = await caller({ plan: 'enterprise', scopes: ['webhooks:read'] });
        expect((await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth })).status).toBe(200);
        await tenancy.setPlan(c.tenantId, 'professional');
        expectProblem(
          await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth }),
          403,
          'entitlement_required',
        );
        await tenancy.changeEntitlements(c.tenantId, [
          { entitlement: 'api.webhooks', granted: true },
        ]);
        expect((await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth })).status).toBe(200);
        await tenancy.setPlan(c.tenantId, 'starter');
        await tenancy.changeEntitlements(c.tenantId, [
          { entitlement: 'api.webhooks', granted: null },
        ]);
        expectProblem(
          await call(t.baseUrl, 'GET', '/webhooks', { auth: c.auth }),
          403,
          'entitlement_required',
        );
      });
    });

    describe('check order: authentication → IP → scope → entitlement → validation → resource', () => {
      it('an invalid token from a refused address is 401', async () => {
        const client = await newClient({ allowedIps: ['10.0.0.0/8'] });
        const token = remember(await issueToken(t.app, client));
        await db.query(`UPDATE access_tokens SET revoked_at = now() WHERE token_digest = $1`, [
          digest(token),
        ]);
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth: `Bearer ${token}`,
          headers: { 'x-forwarded-for': '192.168.0.1' },
        });
        expectProblem(res, 401, 'invalid_token');
      });

      it('a token lacking the scope, from a refused address, is 403 ip_not_allowed', async () => {
        const client = await newClient({ allowedIps: ['10.0.0.0/8'], scopes: ['webhooks:read'] });
        const token = remember(await issueToken(t.app, client, ['webhooks:read']));
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth: `Bearer ${token}`,
          headers: { 'x-forwarded-for': '192.168.0.1' },
        });
        expectProblem(res, 403, 'ip_not_allowed');
      });

      it('a missing scope on a plan without the entitlement is 403 insufficient_scope', async () => {
        const c = await caller({ plan: 'starter', scopes: ['projects:read'] });
        const res = await call(t.baseUrl, 'POST', '/documents/1/checkout', {
          auth: c.auth,
          body: { ttl_minutes: 1 },
        });
        expectProblem(res, 403, 'insufficient_scope');
      });

      it('an invalid body on a plan without the entitlement is 403 entitlement_required', async () => {
        const c = await caller({ plan: 'starter', scopes: ['locks:write'] });
        const res = await call(t.baseUrl, 'POST', '/documents/999999/checkout', {
          auth: c.auth,
          body: { ttl_minutes: 1 },
        });
        expectProblem(res, 403, 'entitlement_required');
      });

      it('an invalid request for an unknown resource is 400 validation_failed', async () => {
        const c = await caller({ plan: 'enterprise', scopes: ['locks:write', 'projects:read'] });
        const invalid = await call(t.baseUrl, 'POST', '/documents/999999/checkout', {
          auth: c.auth,
          body: { ttl_minutes: 1 },
        });
        expectProblem(invalid, 400, 'validation_failed');
        const unknown = await call(t.baseUrl, 'POST', '/documents/999999/checkout', {
          auth: c.auth,
          body: { ttl_minutes: 30 },
        });
        expectProblem(unknown, 404, 'not_found');
        const badQuery = await call(t.baseUrl, 'GET', '/projects?limit=1000');
        expectProblem(badQuery, 401, 'unauthenticated');
        const badQueryAuthed = await call(t.baseUrl, 'GET', '/projects?limit=1000', {
          auth: c.auth,
        });
        expectProblem(badQueryAuthed, 400, 'validation_failed');
      });
    });
  });

  describe('IP allowlists (TRUST_PROXY=1, X-Forwarded-For)', () => {
    let client: TestClient;
    beforeAll(async () => {
      client = await newClient({ allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    });

    const tokenFrom = (xff: string | undefined, basic = false) =>
      postToken(t.baseUrl, {
        form: basic
          ? { grant_type: 'client_credentials' }
          : {
              grant_type: 'client_credentials',
              client_id: client.clientId,
              client_secret: client.clientSecret,
            },
        authorization: basic ? basicAuth(client.clientId, client.clientSecret) : undefined,
        xff,
      });

    it.each([
      '10.20.30.40',
      '10.255.255.255',
      '2001:db8::7',
      '2001:db8:ffff::1',
      '::ffff:10.1.2.3',
    ])('the token endpoint admits %s', async (ip) => {
      const res = await tokenFrom(ip);
      expect(res.status).toBe(200);
      remember(res.body.access_token as string);
    });

    it.each(['11.0.0.1', '192.168.1.1', '2001:db9::1', '::1', 'not-an-ip', undefined])(
      'the token endpoint answers %s with 401 invalid_client',
      async (ip) => {
        expectOAuthError(await tokenFrom(ip), 401, 'invalid_client');
        const basic = await tokenFrom(ip, true);
        expectOAuthError(basic, 401, 'invalid_client');
        expect(basic.headers.get('www-authenticate')).toBe('Basic realm="api"');
      },
    );

    it('every API request is checked against the allowlist, v4 and v6', async () => {
      const issued = await tokenFrom('10.0.0.1');
      const auth = `Bearer ${remember(issued.body.access_token as string)}`;
      // one trusted hop: the right-most entry is the client, whatever the client wrote before it
      for (const ip of ['10.1.1.1', '2001:db8::1', '2001:db8:abcd::42', '203.0.113.9, 10.9.8.7']) {
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth,
          headers: { 'x-forwarded-for': ip },
        });
        withMessage(ip, () => expect(res.status).toBe(200));
      }
      for (const ip of ['11.1.1.1', '2001:db9::1', '10.0.0.1, 203.0.113.9']) {
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth,
          headers: { 'x-forwarded-for': ip },
        });
        expectProblem(res, 403, 'ip_not_allowed');
      }
      // the test's own address (127.0.0.1) is not on the list
      expectProblem(await call(t.baseUrl, 'GET', '/projects', { auth }), 403, 'ip_not_allowed');
    });

    it('a PAT allowlist is enforced too', async () => {
      const tenantId = await createTenant(t.app, 'enterprise');
      const pat = await createPat(t.app, tenantId, {
        scopes: ['projects:read'],
        allowedIps: ['192.0.2.0/24', '2001:db8:1::/48'],
      });
      remember(pat.token);
      for (const ip of ['192.0.2.55', '2001:db8:1:2::3']) {
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth: pat.auth,
          headers: { 'x-forwarded-for': ip },
        });
        withMessage(ip, () => expect(res.status).toBe(200));
      }
      for (const ip of ['198.51.100.1', '2001:db8:2::1']) {
        const res = await call(t.baseUrl, 'GET', '/projects', {
          auth: pat.auth,
          headers: { 'x-forwarded-for': ip },
        });
        expectProblem(res, 403, 'ip_not_allowed');
      }
    });

    it('an allowlist set on a client stays enforced after the tenant loses auth.ip_allowlist', async () => {
      const tenantId = await createTenant(t.app, 'enterprise');
      const c = await newClient({ tenantId, allowedIps: ['10.0.0.0/8'] });
      await tenancy.setPlan(tenantId, 'starter');
      const res = await postToken(t.baseUrl, {
        form: {
          grant_type: 'client_credentials',
          client_id: c.clientId,
          client_secret: c.clientSecret,
        },
        xff: '192.168.1.1',
      });
      expectOAuthError(res, 401, 'invalid_client');
    });
  });

  describe('secrets at rest and in logs', () => {
    it('stores only SHA-256 digests of client secrets, access tokens and PATs', async () => {
      const c = await caller();
      const pat = await createPat(t.app, c.tenantId, { scopes: ['projects:read'] });
      remember(pat.token);
      expect(c.client.clientId).toMatch(/^gci_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(c.client.clientSecret, 'gcs')).toBe(true);

      const [client] = await db.query<Array<{ secret_digest: Buffer; json: string }>>(
        'SELECT secret_digest, row_to_json(c)::text AS json FROM api_clients c WHERE client_id = $1',
        [c.client.clientId],
      );
      expect(client!.secret_digest.equals(digest(c.client.clientSecret))).toBe(true);
      expect(client!.json).not.toContain(c.client.clientSecret.slice(4));

      const [token] = await db.query<Array<{ token_digest: Buffer; json: string }>>(
        'SELECT token_digest, row_to_json(t)::text AS json FROM access_tokens t WHERE token_digest = $1',
        [digest(c.token)],
      );
      expect(token!.token_digest).toHaveLength(32);
      expect(token!.json).not.toContain(c.token.slice(4));

      const [patRow] = await db.query<Array<{ token_digest: Buffer; json: string }>>(
        'SELECT token_digest, row_to_json(p)::text AS json FROM personal_access_tokens p WHERE id = $1',
        [pat.patId],
      );
      expect(patRow!.token_digest.equals(digest(pat.token))).toBe(true);
      expect(patRow!.json).not.toContain(pat.token.slice(5));

      // no row of the credential tables holds any secret this file has seen
      const [dump] = await db.query<Array<{ text: string }>>(
        `SELECT (SELECT string_agg(row_to_json(c)::text, '') FROM api_clients c)
             || (SELECT string_agg(row_to_json(a)::text, '') FROM access_tokens a)
             || (SELECT string_agg(row_to_json(p)::text, '') FROM personal_access_tokens p) AS text`,
      );
      expect(dump!.text.length).toBeGreaterThan(1000);
      for (const secret of secrets) expect(dump!.text).not.toContain(secret.slice(-49));
    });

    it('never writes a token or secret to the log', async () => {
      expect(secrets.length).toBeGreaterThan(20);
      expect(t.logs.length).toBeGreaterThan(20);
      const logs = t.logs.join('\n');
      for (const secret of secrets) expect(logs).not.toContain(secret.slice(-49));
      expect(logs).not.toMatch(/g(cs|at|pat)_[0-9A-Za-z]{49}/);
    });
  });
});

describe('TRUST_PROXY=false ignores X-Forwarded-For', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  // runs first: this app's database has no tenant yet, as on a first embedded start
  it('first start seeds the demo tenant once and prints its credentials on stdout only', async () => {
    const printed: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await onFirstStart(t.app);
      await onFirstStart(t.app);
    } finally {
      spy.mockRestore();
    }
    const output = printed.join('');
    const clientId = /gci_[0-9A-Za-z]{49}/.exec(output)?.[0];
    const secret = /gcs_[0-9A-Za-z]{49}/.exec(output)?.[0];
    withMessage(output, () => expect(clientId && secret).toBeTruthy());
    expect(output.match(/Demo tenant created/g)).toHaveLength(1);
    expect(output).toContain('/api/v1/docs');
    expect(output).toContain(`curl -s -u '${clientId}:${secret}'`);
    expect(t.logs.join('\n')).not.toContain(secret!.slice(4));

    const res = await postToken(t.baseUrl, {
      form: { grant_type: 'client_credentials' },
      authorization: basicAuth(clientId!, secret!),
    });
    expect(res.status).toBe(200);
    const projects = await call(t.baseUrl, 'GET', '/projects', {
      auth: `Bearer ${res.body.access_token as string}`,
    });
    expect(projects.body.data).toHaveLength(2);

    // and one platform key with every platform scope, printed beside them, never logged
    const platformKey = /gpk_[0-9A-Za-z]{49}/.exec(output)?.[0];
    withMessage(output, () => expect(platformKey).toBeTruthy());
    expect(output.match(/gpk_/g)).toHaveLength(1);
    expect(output).toContain('/platform/v1/docs');
    expect(t.logs.join('\n')).not.toContain(platformKey!.slice(4));
    const tenants = await call(t.platformUrl, 'GET', `${t.platformUrl}/platform/v1/tenants`, {
      auth: `Bearer ${platformKey!}`,
    });
    expect(tenants.status).toBe(200);
    expect(tenants.body.data).toHaveLength(1);
  });

  it('judges the socket address, not the header', async () => {
    const tenantId = await createTenant(t.app, 'enterprise');
    const client = await createClient(t.app, tenantId, { allowedIps: ['10.0.0.0/8'] });
    const res = await postToken(t.baseUrl, {
      form: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      },
      xff: '10.1.2.3',
    });
    expectOAuthError(res, 401, 'invalid_client');
    const token = await issueToken(t.app, client);
    const api = await call(t.baseUrl, 'GET', '/projects', {
      auth: `Bearer ${token}`,
      headers: { 'x-forwarded-for': '10.1.2.3' },
    });
    expectProblem(api, 403, 'ip_not_allowed');

    const local = await createClient(t.app, tenantId, { allowedIps: ['127.0.0.0/8', '::1/128'] });
    const ok = await postToken(t.baseUrl, {
      form: {
        grant_type: 'client_credentials',
        client_id: local.clientId,
        client_secret: local.clientSecret,
      },
      xff: '192.168.1.1',
    });
    expect(ok.status).toBe(200);
  });
});
