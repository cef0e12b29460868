import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { RevisionDecisionService } from '../src/modules/revisions/revision-decision.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { runCliInProcess } from './support/cli.js';
import { createCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createLockableDocument } from './support/lock-factories.js';
import { tampered } from './support/secrets.js';

interface AuditRow {
  tenant_id: number | null;
  credential_ref: string | null;
  action: string;
  target: string | null;
  outcome: string;
  detail: string | null;
  ip: string | null;
  request_id: string | null;
}

describe('audit log', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function auditRows(tenantId: number): Promise<AuditRow[]> {
    // entries are recorded before the response is sent and written in batches: write what is
    // pending (a fixed wait of 100 ms was not always enough on a loaded CI machine)
    await t.app.get(AuditService).drain();
    return t.app.get(DataSource).query(
      `SELECT tenant_id, credential_ref, action, target, outcome, detail, ip, request_id
         FROM audit_log WHERE tenant_id = $1 ORDER BY id`,
      [tenantId],
    );
  }

  it('records lock moves with tenant, credential, target, IP, request id and outcome', async () => {
    const caller = await createCaller(t.app);
    const { documentId } = await createLockableDocument(t.app, caller.tenantId);
    const first = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
      auth: caller.auth,
      body: {},
      headers: { 'x-request-id': 'audit-1' },
    });
    expect(first.status).toBe(201);
    const second = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
      auth: caller.auth,
      body: {},
      headers: { 'x-request-id': 'audit-2' },
    });
    expect(second.status).toBe(423);
    const rows = await auditRows(caller.tenantId);
    expect(rows).toEqual([
      {
        tenant_id: caller.tenantId,
        credential_ref: `client:${caller.client.id}`,
        action: 'document.checkout',
        target: `document:${documentId}`,
        outcome: 'success',
        detail: null,
        ip: expect.stringMatching(/127\.0\.0\.1/),
        request_id: 'audit-1',
      },
      expect.objectContaining({
        action: 'document.checkout',
        outcome: 'failure',
        detail: 'document_locked',
        request_id: 'audit-2',
      }),
    ]);
    // the lock token never reaches the trail
    expect(JSON.stringify(rows)).not.toContain((first.body as { lock_token: string }).lock_token);
  });

  it('records stagings and decisions, granted or refused', async () => {
    const caller = await createCaller(t.app);
    const { documentId } = await createLockableDocument(t.app, caller.tenantId);
    const staged = await call(t.baseUrl, 'POST', `/documents/${documentId}/external-revisions`, {
      auth: caller.auth,
      body: { content: { a: 1 } },
    });
    expect(staged.status).toBe(201);
    const revisionId = (staged.body as { revisionId: number }).revisionId;
    const decisions = t.app.get(RevisionDecisionService);
    await decisions.accept(revisionId, 'jane@acme');
    await expect(decisions.reject(revisionId, 'joe@acme')).rejects.toMatchObject({
      code: 'revision_not_staged',
    });
    const rows = await auditRows(caller.tenantId);
    expect(rows.map((r) => [r.action, r.target, r.outcome, r.detail, r.credential_ref])).toEqual([
      ['revision.stage', `document:${documentId}`, 'success', null, `client:${caller.client.id}`],
      ['revision.accept', `revision:${revisionId}`, 'success', null, 'platform:jane@acme'],
      [
        'revision.reject',
        `revision:${revisionId}`,
        'failure',
        'revision_not_staged',
        'platform:joe@acme',
      ],
    ]);
  });

  it('records token issuance, granted and refused', async () => {
    const caller = await createCaller(t.app);
    const ask = (secret: string, scope?: string) =>
      call(t.baseUrl, 'POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: caller.client.clientId,
          client_secret: secret,
          ...(scope ? { scope } : {}),
        },
        headers: { 'x-request-id': `tok-${scope ?? 'all'}` },
      });
    expect((await ask(caller.client.clientSecret)).status).toBe(200);
    expect((await ask(caller.client.clientSecret, 'admin:everything')).status).toBe(400);
    const rows = await auditRows(caller.tenantId);
    expect(
      rows.map((r) => [r.action, r.outcome, r.detail, r.credential_ref, r.request_id]),
    ).toEqual([
      ['token.issue', 'success', null, `client:${caller.client.id}`, 'tok-all'],
      [
        'token.issue',
        'failure',
        'invalid_scope',
        `client:${caller.client.id}`,
        'tok-admin:everything',
      ],
    ]);
    // a refusal before the client is known is recorded without a tenant
    const wrong = await ask(tampered(caller.client.clientSecret));
    expect(wrong.status).toBe(401);
    // recorded before the 401 was sent: write what is pending rather than wait a fixed time
    await t.app.get(AuditService).drain();
    const anonymous = await t.app
      .get(DataSource)
      .query(
        `SELECT tenant_id, outcome, detail FROM audit_log WHERE request_id = 'tok-all' AND tenant_id IS NULL`,
      );
    expect(anonymous).toEqual([{ tenant_id: null, outcome: 'failure', detail: 'invalid_client' }]);
  });

  it('lists a tenant trail through the CLI, newest first, as one JSON object', async () => {
    const caller = await createCaller(t.app);
    for (const action of ['first.action', 'second.action']) {
      await t.app.get(AuditService).record({
        tenantId: caller.tenantId,
        credentialRef: 'client:1',
        action,
        target: null,
        outcome: 'success',
      });
    }
    // the CLI on its own, without a service: the suite that keeps an ordinary command (its output,
    // a usage error) covered on that path; the CLI suites go through the test app's admin socket
    const listed = await runCliInProcess(t, 'audit', 'list', '--tenant', String(caller.tenantId));
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    expect(listed.out.data.map((r: { action: string }) => r.action)).toEqual([
      'second.action',
      'first.action',
    ]);
    const usage = await runCliInProcess(t, 'audit', 'list');
    expect(usage.code).toBe(2);
    expect(usage.out).toEqual({ error: { code: 'usage', message: '--tenant is required' } });
  });

  it('is append-only, even for the owner role', async () => {
    const caller = await createCaller(t.app);
    await t.app.get(AuditService).record({
      tenantId: caller.tenantId,
      credentialRef: 'client:1',
      action: 'test.action',
      target: null,
      outcome: 'success',
    });
    const db = t.app.get(DataSource);
    await expect(db.query(`UPDATE audit_log SET outcome = 'failure'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query(`DELETE FROM audit_log`)).rejects.toThrow(/append-only/);
    await expect(db.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
    const listed = await t.app.get(AuditService).list({ tenantId: caller.tenantId }, 10);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      action: 'test.action',
      outcome: 'success',
      tenant_id: caller.tenantId,
    });
  });
});
