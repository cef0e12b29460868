import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { connect } from 'node:net';
import pg from 'pg';
import { PageReads } from '../src/common/database/page-reads.js';
import { sql } from '../src/common/database/statement.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createDocument, createProject } from './support/read-factories.js';
import { until } from './support/until.js';

jest.setTimeout(60_000);

/**
 * A big page waits for its turn (DATABASE_BIG_PAGE_READS); a client that sends such requests and
 * closes its connection must not leave reads queued for nobody, taking other tenants' turns.
 */
describe('a big page whose client has gone', () => {
  let t: TestApp;
  let a: TestCaller;
  let projectId: number;
  let holder: pg.Client;
  const LOCK = 742_421;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_BIG_PAGE_READS: '1' });
    a = await createCaller(t.app);
    projectId = await createProject(t.app, a.tenantId);
    await createDocument(t.app, a.tenantId, projectId);
    holder = new pg.Client({ connectionString: t.database.directUrl });
    await holder.connect();
  });

  afterAll(async () => {
    await holder?.end();
    await t?.close();
  });

  it('leaves the queue when its client disconnects and is never read; a client that stays is served', async () => {
    const reads = t.app.get(PageReads);
    const tx = t.app.get(TenantTransactions);
    const pageReads: string[] = [];
    const readOnce = tx.readOnce.bind(tx);
    const spy = jest.spyOn(tx, 'readOnce').mockImplementation((tenantId, statement, hold) => {
      if (statement.text.includes('FROM documents d')) pageReads.push(statement.text);
      return readOnce(tenantId, statement, hold);
    });
    try {
      // the only slot, held by a read that waits on the test's lock
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [LOCK]);
      const held = reads.read(a.tenantId, 1000, sql`SELECT pg_advisory_xact_lock(${LOCK})`);

      // a client asks for the project's documents (a 1,000-item page) and goes away while it waits
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
      await new Promise<void>((ok) => socket.once('connect', ok));
      socket.on('error', () => undefined);
      socket.write(
        `GET /api/v1/projects/${projectId}/documents HTTP/1.1\r\nHost: test\r\n` +
          `Authorization: ${a.auth}\r\n\r\n`,
      );
      await until('the page waits for its turn', () => reads.turns().waiting === 1);
      expect((await t.scrape()).text).toMatch(/^turn_queue_waiting\{queue="big_page_reads"\} 1$/m);
      socket.destroy();
      await until('the page has left the queue', () => reads.turns().waiting === 0);

      // a client that stays waits its turn and gets its page once the slot frees
      const stays = call(t.baseUrl, 'GET', `/projects/${projectId}/documents`, { auth: a.auth });
      await until('the second page waits', () => reads.turns().waiting === 1);
      await holder.query('COMMIT');
      await held;
      const res = await stays;
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      // only the page of the client that stayed was read
      expect(pageReads).toHaveLength(1);
      // operators see it
      const metrics = (await t.scrape()).text;
      expect(metrics).toMatch(/^turn_queue_abandoned_total\{queue="big_page_reads"\} 1$/m);
      expect(metrics).toMatch(/^turn_queue_waiting\{queue="big_page_reads"\} 0$/m);
      // the page nobody waited for is no error of the service's
      expect(t.logs.filter((line) => /unhandled error/.test(line))).toEqual([]);
    } finally {
      spy.mockRestore();
      await holder.query('ROLLBACK').catch(() => undefined);
    }
  });
});
