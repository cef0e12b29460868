import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import {
  createPlatformKey,
  platformCall,
  type TestPlatformKey,
} from './support/platform-factories.js';
import {
  createRevisionFixture,
  eventsOf,
  revisionRows,
  stage,
} from './support/revision-factories.js';
import {
  createWebhook,
  deliveriesOf,
  startReceiver,
  type Receiver,
  waitFor,
} from './support/webhook-factories.js';

interface VersionRow {
  id: number;
  number: number;
  content: Record<string, unknown>;
  content_hash: string;
  source: string;
}

/**
 * The accept writes a version, the candidate's decision, its siblings' supersession and every
 * event in one statement made from what its opening round trip read: these hold it to one winner
 * per document, one version, and each event (and its delivery) written once.
 */
describe('platform API: accepting candidates of one document at once', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    // no delivery worker: the deliveries stay as the accept wrote them
    t = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    key = await createPlatformKey(t.app, ['platform:reviews'], 'race-ui');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const accept = (revisionId: number, actor: string) =>
    platformCall(t, 'POST', `/revisions/${revisionId}/accept`, {
      auth: key.auth,
      actor,
      body: { note: `by ${actor}` },
    });

  const versionsOf = (documentId: number): Promise<VersionRow[]> =>
    t.app.get(DataSource).query(
      `SELECT id, number, content, content_hash, source FROM document_versions
          WHERE document_id = $1 ORDER BY number`,
      [documentId],
    );

  it('one of four candidates wins; one version; the others superseded; each event and delivery once', async () => {
    const f = await createRevisionFixture(t.app, { plan: 'enterprise' });
    const hook = await createWebhook(t.baseUrl, f.caller.auth, receiver.url('/race'), [
      'document.version_created',
      'external_revision.superseded',
      'external_revision.accepted',
    ]);
    const ids: number[] = [];
    const hashes = new Map<number, string>();
    for (let i = 0; i < 4; i++) {
      const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { i } });
      expect(res.status).toBe(201);
      ids.push(res.body.revisionId as number);
      hashes.set(res.body.revisionId as number, res.body.content_hash as string);
    }
    const before = await eventsOf(t.app, f.caller.tenantId);

    // the document row held here, so that the four accepts all wait for it and then contend
    const ds = t.app.get(DataSource);
    const holder = ds.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT 1 FROM documents WHERE id = $1 FOR UPDATE`, [f.documentId]);
    const pending = Promise.all(ids.map((id, i) => accept(id, `reviewer ${i}`)));
    try {
      await waitFor(
        async () => {
          // asked on the holder's own connection: behind PgBouncer's five server connections the
          // holder and the four waiting accepts take them all, so a new query would queue too;
          // a transaction sees one snapshot of the activity unless it clears it
          await holder.query('SELECT pg_stat_clear_snapshot()');
          const [row] = await holder.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return row.n >= ids.length;
        },
        20_000,
        'the accepts to wait for the document row',
      );
    } finally {
      await holder.commitTransaction();
      await holder.release();
    }
    const answers = await pending;

    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect({ status: a.status, code: a.body.code }).toEqual({
        status: 409,
        code: 'revision_not_staged',
      });
    }
    const winner = won[0]!.body as { revisionId: number; resulting_version_id: number };
    const i = ids.indexOf(winner.revisionId);
    const losers = ids.filter((id) => id !== winner.revisionId);

    // the document has exactly one more version: the winner's content and staged hash
    const versions = await versionsOf(f.documentId);
    expect(versions.map((v) => v.number)).toEqual([1, 2]);
    expect(versions[1]).toEqual({
      id: winner.resulting_version_id,
      number: 2,
      content: { i },
      content_hash: hashes.get(winner.revisionId),
      source: 'external_revision',
    });
    const [doc] = await t.app
      .get(DataSource)
      .query(`SELECT current_version_id FROM documents WHERE id = $1`, [f.documentId]);
    expect(doc.current_version_id).toBe(winner.resulting_version_id);

    const rows = await revisionRows(t.app, f.documentId);
    expect(rows.map((r) => [r.id, r.status, r.resulting_version_id, r.decided_by])).toEqual(
      ids.map((id) =>
        id === winner.revisionId
          ? [id, 'accepted', winner.resulting_version_id, `reviewer ${i}`]
          : [id, 'superseded', null, null],
      ),
    );
    expect(rows.every((r) => r.decided_at !== null)).toBe(true);

    // each event once, in order: the version, the superseded siblings (by id), the accepted one
    const base = f.versionIds[0]!;
    const revisionData = (id: number, status: string, resulting: number | null) => ({
      revisionId: id,
      documentId: f.documentId,
      projectId: f.projectId,
      status,
      base_version_id: base,
      resulting_version_id: resulting,
    });
    const after = (await eventsOf(t.app, f.caller.tenantId)).slice(before.length);
    expect(after).toEqual([
      {
        type: 'document.version_created',
        data: {
          documentId: f.documentId,
          projectId: f.projectId,
          versionId: winner.resulting_version_id,
          number: 2,
          content_hash: hashes.get(winner.revisionId),
        },
      },
      ...losers.map((id) => ({
        type: 'external_revision.superseded',
        data: revisionData(id, 'superseded', null),
      })),
      {
        type: 'external_revision.accepted',
        data: revisionData(winner.revisionId, 'accepted', winner.resulting_version_id),
      },
    ]);

    // one delivery per event to the subscribed webhook, none twice
    const delivered = (await deliveriesOf(t.app, hook.webhookId)).map((d) => d.event_id);
    expect(delivered).toHaveLength(after.length);
    expect(new Set(delivered).size).toBe(after.length);

    // an audit line per decision, the refused ones too, each with its actor
    await t.app.get(AuditService).drain();
    const audit: Array<{ target: string; actor: string; outcome: string }> = await t.app
      .get(DataSource)
      .query(
        `SELECT target, actor, outcome FROM audit_log WHERE target = ANY($1) ORDER BY target`,
        [ids.map((id) => `revision:${id}`)],
      );
    expect(audit).toHaveLength(ids.length);
    expect(audit.filter((a) => a.outcome === 'success').map((a) => [a.target, a.actor])).toEqual([
      [`revision:${winner.revisionId}`, `reviewer ${i}`],
    ]);
  });

  it('accepts the candidates of many documents at once, each into its own document', async () => {
    const fixtures = await Promise.all(
      Array.from({ length: 6 }, () => createRevisionFixture(t.app, { versions: 2 })),
    );
    const staged = await Promise.all(
      fixtures.map(async (f, n) => {
        const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { n } });
        expect(res.status).toBe(201);
        return res.body.revisionId as number;
      }),
    );
    const answers = await Promise.all(staged.map((id) => accept(id, 'bulk')));
    expect(answers.map((a) => a.status)).toEqual(staged.map(() => 200));
    for (const [n, f] of fixtures.entries()) {
      const versions = await versionsOf(f.documentId);
      expect(versions.map((v) => [v.number, v.source])).toEqual([
        [1, 'platform'],
        [2, 'platform'],
        [3, 'external_revision'],
      ]);
      expect(versions[2]!.content).toEqual({ n });
      expect(versions[2]!.id).toBe(answers[n]!.body.resulting_version_id);
      const types = (await eventsOf(t.app, f.caller.tenantId)).map((e) => e.type);
      expect(types.slice(-2)).toEqual(['document.version_created', 'external_revision.accepted']);
    }
  });

  it('supersedes only staged siblings: a rejected one keeps its decision', async () => {
    const f = await createRevisionFixture(t.app);
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      const res = await stage(t.baseUrl, f.caller.auth, f.documentId, { content: { n } });
      ids.push(res.body.revisionId as number);
    }
    const rejected = await platformCall(t, 'POST', `/revisions/${ids[0]}/reject`, {
      auth: key.auth,
      actor: 'rita',
      body: {},
    });
    expect(rejected.status).toBe(200);
    const res = await accept(ids[2]!, 'jane');
    expect(res.status).toBe(200);
    expect((await revisionRows(t.app, f.documentId)).map((r) => [r.status, r.decided_by])).toEqual([
      ['rejected', 'rita'],
      ['superseded', null],
      ['accepted', 'jane'],
    ]);
    const superseded = await eventsOf(t.app, f.caller.tenantId, 'external_revision.superseded');
    expect(superseded.map((e) => e.data['revisionId'])).toEqual([ids[1]]);
  });
});
