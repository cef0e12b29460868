import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createClient, createTenant, issueToken, type TestClient } from './support/factories.js';
import { call } from './support/http.js';

/**
 * Issue 18 item 6: `TRUST_PROXY` names the proxies (a hop count or their addresses) and the client
 * address is the right-most `X-Forwarded-For` entry no trusted proxy added, on both adapters. The
 * test's requests come from 127.0.0.1, the "proxy" closest to the service.
 */
describe.each([
  {
    form: 'a hop count (TRUST_PROXY=1)',
    env: '1',
    // the entry the one proxy appended is the client; what the client wrote before it is not
    admitted: ['10.1.1.1', '8.8.8.8, 10.1.1.1', '10.2.2.2, 8.8.8.8, 10.1.1.1', '::ffff:10.1.1.1'],
    refused: [
      '10.1.1.1, 8.8.8.8',
      '10.1.1.1, 10.2.2.2, 8.8.8.8',
      undefined,
      // only canonical text is an address: these spell 10.1.1.1 to lenient parsers (octal,
      // shortened, hexadecimal, one number), and are no address at all here
      '012.1.1.1',
      '10.1',
      '10.1.257',
      '0x0a.1.1.1',
      '167837953',
      '010.001.001.001',
      '8.8.8.8, 012.1.1.1',
      '::ffff:012.1.1.1',
      'fe80::1%eth0',
    ],
  },
  {
    form: 'two hops (TRUST_PROXY=2)',
    env: '2',
    admitted: ['10.1.1.1, 8.8.8.8', '8.8.8.8, 10.1.1.1, 192.0.2.7', '10.1.1.1'],
    refused: ['10.1.1.1, 8.8.8.8, 192.0.2.7', '8.8.8.8, 10.1.1.1'],
  },
  {
    form: 'a proxy list (TRUST_PROXY=loopback,192.0.2.0/24)',
    env: 'loopback,192.0.2.0/24',
    // the right-most entry that is not one of the listed proxies
    admitted: ['10.1.1.1', '10.1.1.1, 192.0.2.7', '8.8.8.8, 10.1.1.1, 192.0.2.9, 192.0.2.7'],
    refused: ['10.1.1.1, 8.8.8.8', '10.1.1.1, 8.8.8.8, 192.0.2.7', '192.0.2.8', undefined],
  },
  {
    form: 'a proxy list without the peer (TRUST_PROXY=192.0.2.0/24)',
    env: '192.0.2.0/24',
    // 127.0.0.1 is not a trusted proxy: its X-Forwarded-For is not believed at all
    admitted: [],
    refused: ['10.1.1.1', '10.1.1.1, 192.0.2.7', undefined],
  },
])('TRUST_PROXY as $form', ({ env, admitted, refused }) => {
  let t: TestApp;
  let client: TestClient;
  let auth: string;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: env });
    const tenantId = await createTenant(t.app);
    client = await createClient(t.app, tenantId, {
      scopes: ['projects:read'],
      allowedIps: ['10.0.0.0/8'],
    });
    auth = `Bearer ${await issueToken(t.app, client, ['projects:read'])}`;
  });
  afterAll(async () => {
    await t.close();
  });

  const token = (xff: string | undefined) =>
    call(t.baseUrl, 'POST', '/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      },
      headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
    });
  const projects = (xff: string | undefined) =>
    call(t.baseUrl, 'GET', '/projects', {
      auth,
      headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
    });

  it('admits a client inside the allowlist at the token endpoint and on the API', async () => {
    for (const xff of admitted) {
      const issued = await token(xff);
      withMessage(`token, X-Forwarded-For: ${xff}`, () => expect(issued.status).toBe(200));
      const listed = await projects(xff);
      withMessage(`API, X-Forwarded-For: ${xff}`, () => expect(listed.status).toBe(200));
    }
  });

  it('refuses one outside it, whatever the client wrote further left', async () => {
    for (const xff of refused) {
      const issued = await token(xff);
      withMessage(`token, X-Forwarded-For: ${String(xff)}`, () =>
        expect({ status: issued.status, error: issued.body?.error }).toEqual({
          status: 401,
          error: 'invalid_client',
        }),
      );
      const listed = await projects(xff);
      withMessage(`API, X-Forwarded-For: ${String(xff)}`, () =>
        expect({ status: listed.status, code: listed.body?.code }).toEqual({
          status: 403,
          code: 'ip_not_allowed',
        }),
      );
    }
  });
});
