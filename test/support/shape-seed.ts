import { DataSource } from 'typeorm';
import { AuditService } from '../../src/modules/audit/audit.service.js';
import { LocksService } from '../../src/modules/locks/locks.service.js';
import type { TestApp } from './app.js';
import { createPat } from './auth-factories.js';
import { createCaller, createClient, createTenant, type TestCaller } from './factories.js';
import { call } from './http.js';
import { checkout, expireOpenLock } from './lock-factories.js';
import { createPlatformKey, platformCall, type TestPlatformKey } from './platform-factories.js';
import { addProjectFile, createDocument, createProject } from './read-factories.js';
import { stage } from './revision-factories.js';
import { createWebhook, type Receiver, waitFor } from './webhook-factories.js';

/** Values for the path parameters of the documents' operations, one coherent set each. */
export type Binding = Record<string, string | number>;

export interface ShapeSeed {
  caller: TestCaller;
  key: TestPlatformKey;
  /** Each operation is called once per binding that names all of its path parameters. */
  bindings: Binding[];
}

/**
 * A versions index embeds this many entries at most (VERSION_INDEX_LIMIT): one more version makes
 * a document read carry `versions_next_cursor`.
 */
const INDEX_LIMIT = 1000;

function ok(res: { status: number; text: string }, what: string, status = 200): void {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
}

/**
 * One tenant with something in every field a list or read answers: projects with files, a document
 * with more versions than its read embeds, a candidate of each status (one superseded, so the
 * review carries `diff_to_current`), locks checked in and expired, an active webhook whose
 * deliveries failed with a 500 (so error, status and excerpt are set) and a paused one, a disabled
 * client and a revoked PAT (allowed IPs on both), an entitlement override, a second tenant (so the
 * tenant list has a next page). `t` must run the workers (the webhook deliveries).
 */
export async function seedShapes(t: TestApp, receiver: Receiver): Promise<ShapeSeed> {
  const { app, baseUrl } = t;
  const caller = await createCaller(app, { plan: 'enterprise' });
  const tenantId = caller.tenantId;
  const key = await createPlatformKey(app);
  const api = (method: string, path: string, body?: unknown) =>
    call(baseUrl, method, path, { auth: caller.auth, body });
  const platform = (method: string, path: string, body?: unknown) =>
    platformCall(t, method, path, { auth: key.auth, actor: 'reviewer@example.com', body });
  await createTenant(app, 'starter');

  receiver.reply('/hook', { status: 500, body: 'boom' });
  const hook = await createWebhook(baseUrl, caller.auth, receiver.url('/hook'), [
    'external_revision.accepted',
    'document.checked_in',
  ]);
  const paused = await createWebhook(baseUrl, caller.auth, receiver.url('/paused'), [
    'document.checked_out',
  ]);
  ok(await api('POST', `/webhooks/${paused.webhookId}/status`, { status: 'paused' }), 'pause');

  const projectId = await createProject(app, tenantId, { description: 'Certification 2026' });
  await createProject(app, tenantId, { description: 'Second project' });
  await addProjectFile(app, tenantId, projectId, { sha256: 'ab'.repeat(32) });
  await addProjectFile(app, tenantId, projectId);

  const big = await createDocument(app, tenantId, projectId, { versions: INDEX_LIMIT + 1 });
  const doc = await createDocument(app, tenantId, projectId, {
    contents: [{ title: 'Policy', body: 'v1', owner: 'ops' }],
  });
  const staged = async (content: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await stage(baseUrl, caller.auth, doc.documentId, { content, ...extra });
    ok(res, 'stage', 201);
    return res.body.revisionId as number;
  };
  const accepted = await staged(
    { title: 'Policy', body: 'v2', owner: 'ops', tags: ['a'] },
    { html: '<p>v2</p>', source_reference: 'erp-42' },
  );
  const superseded = await staged({ title: 'Policy', body: 'v2b' });
  ok(await platform('POST', `/revisions/${accepted}/accept`, { note: 'fine' }), 'accept');
  const rejected = await staged({ title: 'Policy', body: 'v3' });
  ok(await platform('POST', `/revisions/${rejected}/reject`, { note: 'no' }), 'reject');
  const open = await staged({ title: 'Policy', body: 'v4' });
  // two staged: the review queue (staged only by default) has a next page of one
  await staged({ title: 'Policy', body: 'v5' });
  // refused (already decided): an audit line with an outcome of failure and its detail
  ok(await platform('POST', `/revisions/${rejected}/accept`, {}), 'decided again', 409);
  const versions = await api('GET', `/documents/${doc.documentId}/versions`);
  const [firstVersion, resultingVersion] = (versions.body.data as Array<{ versionId: number }>)
    .map((v) => v.versionId)
    .sort((a, b) => a - b);

  const checkedIn = await createDocument(app, tenantId, projectId);
  const lock = await checkout(baseUrl, caller, checkedIn.documentId);
  const checkin = await api('POST', `/documents/${checkedIn.documentId}/checkin`, {
    lock_token: lock.lock_token,
  });
  ok(checkin, 'checkin');
  const expiring = await createDocument(app, tenantId, projectId);
  await checkout(baseUrl, caller, expiring.documentId);
  await expireOpenLock(app, expiring.documentId);
  await app.get(LocksService).sweepExpired();
  ok(await api('POST', `/webhooks/${hook.webhookId}/test`), 'test event', 202);

  const disabled = await createClient(app, tenantId, { allowedIps: ['10.0.0.0/8'], name: 'old' });
  ok(await platform('POST', `/clients/${disabled.clientId}/disable`, {}), 'disable');
  await createPat(app, tenantId, { name: 'live' });
  const revoked = await createPat(app, tenantId, { allowedIps: ['10.0.0.0/8'], name: 'gone' });
  ok(await platform('POST', `/pats/${revoked.patId}/revoke`, {}), 'revoke');
  ok(
    await platform('PATCH', `/tenants/${tenantId}`, {
      entitlements: { remove: ['auth.ip_allowlist'] },
    }),
    'override',
  );

  const db = app.get(DataSource);
  // every delivery of the failing hook attempted (the test event's is not retried)
  const deliveryIds = await waitFor(
    async () => {
      const rows: Array<{ id: string; status: string; attempts: number }> = await db.query(
        `SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`,
        [hook.webhookId],
      );
      const settled = rows.every((r) => r.attempts > 0 && ['retry', 'failed'].includes(r.status));
      return rows.length >= 3 && settled && rows.map((r) => r.id);
    },
    20_000,
    'the failing deliveries',
  );
  const [queued] = await db.query<Array<{ id: string }>>(
    `SELECT id FROM webhook_deliveries WHERE webhook_id = $1`,
    [paused.webhookId],
  );
  await app.get(AuditService).drain();

  const common = { tenantId, projectId };
  return {
    caller,
    key,
    bindings: [
      { ...common, documentId: big.documentId, webhookId: hook.webhookId },
      { ...common, documentId: doc.documentId, versionId: resultingVersion!, revisionId: accepted },
      { ...common, documentId: doc.documentId, versionId: firstVersion!, revisionId: superseded },
      { documentId: doc.documentId, revisionId: rejected, webhookId: paused.webhookId },
      { documentId: doc.documentId, revisionId: open },
      ...deliveryIds.map((deliveryId) => ({ deliveryId })),
      ...(queued ? [{ deliveryId: queued.id }] : []),
    ],
  };
}
