import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import { CredentialCache } from '../src/modules/auth/credential-cache.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, createClient, createTenant } from './support/factories.js';
import { call } from './support/http.js';
import { rememberSecret } from './support/secrets.js';
import { until } from './support/until.js';

/**
 * The application's log lines as a person and a collector read them (LOG_FORMAT, issue 22 item 4),
 * and the lines of background tasks, which belong to no request.
 */

const isJson = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

/** A statement on a connection of its own, as an operator's psql would. */
async function sql(t: TestApp, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: t.config.DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

type Line = Record<string, unknown> & { msg?: string; req?: unknown; context?: string };
const parsed = (t: TestApp): Line[] => t.logs.map((l) => JSON.parse(l) as Line);

/** Logs secrets through the application's logger, as a careless line would. */
function logProbe(secret: string): void {
  new Logger('Probe').log(
    {
      grant: { client_secret: secret, token: secret },
      headers: { authorization: `Bearer ${secret}` },
    },
    'redaction probe',
  );
}

describe('log lines', () => {
  describe('LOG_FORMAT=pretty', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ LOG_FORMAT: 'pretty' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('writes one readable line an event, with its level and message, secrets redacted', async () => {
      const caller = await createCaller(t.app);
      const res = await call(t.baseUrl, 'GET', '/projects', {
        auth: caller.auth,
        headers: { 'x-request-id': 'pretty-probe-1' },
      });
      expect(res.status).toBe(200);
      const secret = 'probe-secret-0123456789abcdef';
      rememberSecret(secret);
      logProbe(secret);
      const request = await until('the request line', () =>
        t.logs.find((l) => l.includes('(request pretty-probe-1)')),
      );
      expect(request).toMatch(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/projects 200 in \d+ ms \(request pretty-probe-1\) request completed/,
      );
      const probe = t.logs.find((l) => l.includes('redaction probe'));
      expect(probe).toMatch(/INFO: \[Probe\] redaction probe \{/);
      expect(probe).toContain('"client_secret":"[redacted]"');
      expect(probe).toContain('"token":"[redacted]"');
      expect(probe).toContain('"authorization":"[redacted]"');
      expect(t.logs.length).toBeGreaterThan(2);
      for (const line of t.logs) {
        expect(isJson(line)).toBe(false);
        expect(line).toMatch(/^\[[^\]]+\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): [^\n]+\n$/);
        expect(line).not.toContain(secret);
        expect(line).not.toContain(caller.token);
      }
    });
  });

  describe('LOG_FORMAT=json', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ LOG_FORMAT: 'json' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('writes one JSON object a line, as before, secrets redacted', async () => {
      const caller = await createCaller(t.app);
      const res = await call(t.baseUrl, 'GET', '/projects', {
        auth: caller.auth,
        headers: { 'x-request-id': 'json-probe-1' },
      });
      expect(res.status).toBe(200);
      const secret = 'probe-secret-fedcba9876543210';
      rememberSecret(secret);
      logProbe(secret);
      const lines = await until('the request line', () => {
        const all = parsed(t);
        return all.some((l) => (l.req as { id?: string } | undefined)?.id === 'json-probe-1')
          ? all
          : undefined;
      });
      expect(
        lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'json-probe-1'),
      ).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { id: 'json-probe-1', method: 'GET', path: '/api/v1/projects' },
        res: { statusCode: 200 },
      });
      expect(lines.find((l) => l.msg === 'redaction probe')).toMatchObject({
        level: 30,
        context: 'Probe',
        grant: { client_secret: '[redacted]', token: '[redacted]' },
        headers: { authorization: '[redacted]' },
      });
      for (const line of t.logs) expect(line).not.toContain(secret);
    });
  });

  describe('background tasks started by a request', () => {
    let t: TestApp;
    beforeAll(async () => {
      // the credential cache listens from the first look-up on: a request's
      t = await startTestApp({ AUTH_CACHE_TTL_MS: '60000' });
    });
    afterAll(async () => {
      await t.close();
    });

    it("log the credential cache's LISTEN failure without the request that started it", async () => {
      const cache = t.app.get(CredentialCache);
      const tenantId = await createTenant(t.app);
      const client = await createClient(t.app, tenantId);
      expect(cache.listening).toBe(false);
      // the token request is the first look-up: the LISTEN connection is opened inside it
      const token = await call(t.baseUrl, 'POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
        headers: { 'x-request-id': 'starts-the-listener' },
      });
      expect(token.status).toBe(200);
      await until('the cache to listen', () => (cache.listening ? true : undefined));
      // the token request's own lines carry it (the context exists, and is not leaked below)
      expect(
        parsed(t).some((l) => (l.req as { id?: string } | undefined)?.id === 'starts-the-listener'),
      ).toBe(true);

      await sql(
        t,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'grc-credential-cache' AND datname = current_database()`,
      );
      const failure = await until('the listen failure line', () =>
        parsed(t).find(
          (l) => l.context === 'CredentialCache' && /listen connection failed/.test(l.msg ?? ''),
        ),
      );
      expect(failure).toMatchObject({ level: 40 });
      expect(failure).not.toHaveProperty('req');
      await until('the cache to listen again', () => (cache.listening ? true : undefined));
    });

    it('log a failed audit batch without the request that scheduled it', async () => {
      const caller = await createCaller(t.app);
      await sql(t, 'ALTER TABLE audit_log RENAME TO audit_log_away');
      try {
        const res = await call(t.baseUrl, 'POST', '/oauth/token', {
          body: {
            grant_type: 'client_credentials',
            client_id: caller.client.clientId,
            client_secret: caller.client.clientSecret,
          },
          headers: { 'x-request-id': 'schedules-the-audit-batch' },
        });
        expect(res.status).toBe(200);
        const failure = await until('the audit failure line', () =>
          parsed(t).find((l) => l.msg === 'audit records could not be written'),
        );
        expect(failure).toMatchObject({ level: 50, context: 'Audit' });
        expect(failure).not.toHaveProperty('req');
      } finally {
        await sql(t, 'ALTER TABLE audit_log_away RENAME TO audit_log');
      }
    });
  });
});
