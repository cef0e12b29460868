import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { mintToken } from '../src/common/crypto/tokens.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { AppConfig } from '../src/common/config/app-config.js';
import { LOCK_SWEEP_INTERVAL, LockSweeper } from '../src/modules/locks/lock-sweeper.js';
import { LocksService } from '../src/modules/locks/locks.service.js';
import { startTestApp, type TestApp } from './support/app.js';
import { withMessage } from './support/expect-message.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import {
  checkout,
  createLockableDocument,
  eventsOf,
  expireOpenLock,
} from './support/lock-factories.js';

const MINUTE = 60_000;
const TOKEN_SHAPE = /^glk_[0-9A-Za-z]{49}$/;

describe('document locks', () => {
  let t: TestApp;
  let caller: TestCaller;
  const issuedTokens: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app, { plan: 'professional' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function newDocument(): Promise<number> {
    return (await createLockableDocument(t.app, caller.tenantId)).documentId;
  }

  async function checkoutAs(documentId: number, ttl?: number) {
    const body = await checkout(t.baseUrl, caller, documentId, ttl);
    issuedTokens.push(body.lock_token);
    return body;
  }

  function post(path: string, body?: unknown, headers?: Record<string, string>) {
    return call(t.baseUrl, 'POST', path, { auth: caller.auth, body, headers });
  }

  async function openLocks(documentId: number): Promise<number> {
    const rows: { n: number }[] = await t.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM document_locks WHERE document_id = $1 AND released_at IS NULL`,
        [documentId],
      );
    return rows[0]!.n;
  }

  describe('checkout', () => {
    it('answers 201 with a one-time glk_ token, stores only its digest, and defaults to 30 minutes without a body', async () => {
      const documentId = await newDocument();
      const before = Date.now();
      const res = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth: caller.auth,
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['documentId', 'expires_at', 'lock_token']);
      expect(res.body.documentId).toBe(documentId);
      expect(res.body.lock_token).toMatch(TOKEN_SHAPE);
      issuedTokens.push(res.body.lock_token);
      const ttl = Date.parse(res.body.expires_at) - before;
      expect(ttl).toBeGreaterThan(30 * MINUTE - 5_000);
      expect(ttl).toBeLessThan(30 * MINUTE + 5_000);
      expect(res.body.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const stored: { token_digest: Buffer; credential_ref: string }[] = await t.app
        .get(DataSource)
        .query(`SELECT token_digest, credential_ref FROM document_locks WHERE document_id = $1`, [
          documentId,
        ]);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.token_digest).toHaveLength(32);
      expect(stored[0]!.token_digest.toString('utf8')).not.toContain('glk_');
      expect(stored[0]!.credential_ref).toBe(`client:${caller.client.id}`);
    });

    it('accepts an empty JSON object and an empty body as the default ttl', async () => {
      for (const options of [
        { body: {} },
        { rawBody: '', headers: { 'content-type': 'application/json' } },
      ]) {
        const documentId = await newDocument();
        const before = Date.now();
        const res = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
          auth: caller.auth,
          ...options,
        });
        withMessage(res.text, () => expect(res.status).toBe(201));
        issuedTokens.push(res.body.lock_token);
        expect(Date.parse(res.body.expires_at) - before).toBeGreaterThan(30 * MINUTE - 5_000);
        expect(Date.parse(res.body.expires_at) - before).toBeLessThan(30 * MINUTE + 5_000);
      }
    });

    it.each([
      [5, 201],
      [240, 201],
      [4, 400],
      [241, 400],
      [0, 400],
      [-5, 400],
      ['x', 400],
      ['30', 400],
      [1.5, 400],
      [null, 400],
    ])('ttl_minutes %j → %i', async (ttl, status) => {
      const documentId = await newDocument();
      const before = Date.now();
      const res = await post(`/documents/${documentId}/checkout`, { ttl_minutes: ttl });
      withMessage(res.text, () => expect(res.status).toBe(status));
      if (status === 201) {
        issuedTokens.push(res.body.lock_token);
        const ttlMs = Date.parse(res.body.expires_at) - before;
        expect(ttlMs).toBeGreaterThan((ttl as number) * MINUTE - 5_000);
        expect(ttlMs).toBeLessThan((ttl as number) * MINUTE + 5_000);
      } else {
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('ttl_minutes');
        expect(await openLocks(documentId)).toBe(0);
      }
    });

    it('refuses unknown fields with 400', async () => {
      const documentId = await newDocument();
      const res = await post(`/documents/${documentId}/checkout`, { ttl: 30 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toEqual([{ field: 'ttl', message: expect.any(String) }]);
    });

    it('answers 423 document_locked with the live lock expiry, never its token', async () => {
      const documentId = await newDocument();
      const first = await checkoutAs(documentId, 10);
      const res = await post(`/documents/${documentId}/checkout`, { ttl_minutes: 60 });
      expect(res.status).toBe(423);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual({
        type: 'urn:problem:document_locked',
        title: 'Document locked',
        status: 423,
        detail: expect.any(String),
        code: 'document_locked',
        request_id: expect.any(String),
        expires_at: first.expires_at,
      });
      expect(res.text).not.toContain(first.lock_token);
      expect(res.text).not.toContain('glk_');
      expect(await openLocks(documentId)).toBe(1);
    });

    it('gives exactly one of 50 concurrent checkouts the lock', async () => {
      const documentId = await newDocument();
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          post(`/documents/${documentId}/checkout`, { ttl_minutes: 15 }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 423)).toHaveLength(49);
      const winner = results.find((r) => r.status === 201)!;
      issuedTokens.push(winner.body.lock_token);
      for (const loser of results.filter((r) => r.status === 423)) {
        expect(loser.body.code).toBe('document_locked');
        expect(loser.body.expires_at).toBe(winner.body.expires_at);
        expect(loser.text).not.toContain(winner.body.lock_token);
      }
      expect(await openLocks(documentId)).toBe(1);
      const events = await eventsOf(t.app, caller.tenantId, ['document.checked_out']);
      expect(events.filter((e) => e.payload.data.documentId === documentId)).toHaveLength(1);
    });

    it('has the database refuse a second open lock of a document, whatever the code does', async () => {
      const documentId = await newDocument();
      await checkoutAs(documentId);
      await expect(
        t.app.get(DataSource).query(
          `INSERT INTO document_locks (tenant_id, document_id, token_digest, credential_ref, expires_at)
           VALUES ($1, $2, $3, 'client:0', now() + interval '1 hour')`,
          [caller.tenantId, documentId, Buffer.alloc(32, 7)],
        ),
      ).rejects.toMatchObject({
        driverError: { code: '23505', constraint: 'document_locks_one_open' },
      });
    });

    it('succeeds again once the lock has expired, releasing the old one as expired', async () => {
      const documentId = await newDocument();
      const old = await checkoutAs(documentId);
      await expireOpenLock(t.app, documentId);
      const next = await checkoutAs(documentId, 20);
      expect(next.lock_token).not.toBe(old.lock_token);
      expect(await openLocks(documentId)).toBe(1);
      const rows: { release_reason: string | null; released_at: Date | null; expires_at: Date }[] =
        await t.app.get(DataSource).query(
          `SELECT release_reason, released_at, expires_at FROM document_locks
              WHERE document_id = $1 ORDER BY id`,
          [documentId],
        );
      expect(rows.map((r) => r.release_reason)).toEqual(['expired', null]);
      expect(rows[0]!.released_at).toEqual(rows[0]!.expires_at);
      const expired = await eventsOf(t.app, caller.tenantId, ['document.lock_expired']);
      expect(expired.filter((e) => e.payload.data.documentId === documentId)).toEqual([
        expect.objectContaining({
          payload: expect.objectContaining({
            data: { documentId, expired_at: rows[0]!.expires_at.toISOString() },
          }),
        }),
      ]);
    });

    it('answers 404 for an unknown document and for one of another tenant', async () => {
      const other = await createCaller(t.app, { plan: 'professional' });
      const foreign = await createLockableDocument(t.app, other.tenantId);
      for (const id of [foreign.documentId, 2_000_000_000]) {
        const out = await post(`/documents/${id}/checkout`, {});
        expect(out.status).toBe(404);
        expect(out.body.code).toBe('not_found');
        const inn = await post(`/documents/${id}/checkin`, { lock_token: mintToken('glk') });
        expect(inn.status).toBe(404);
        expect(inn.body.code).toBe('not_found');
      }
      expect(await openLocks(foreign.documentId)).toBe(0);
      // and the owner can still take it
      await expect(checkout(t.baseUrl, other, foreign.documentId)).resolves.toMatchObject({
        documentId: foreign.documentId,
      });
    });

    it('answers 400 for a path id that is not a positive integer', async () => {
      const res = await post('/documents/abc/checkout', {});
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('needs the locks:write scope and the api.locks entitlement', async () => {
      const documentId = await newDocument();
      const readOnly = await createCaller(t.app, {
        tenantId: caller.tenantId,
        scopes: ['documents:read'],
      });
      const noScope = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkout`, {
        auth: readOnly.auth,
        body: {},
      });
      expect(noScope.status).toBe(403);
      expect(noScope.body.code).toBe('insufficient_scope');

      const starter = await createCaller(t.app, { plan: 'starter' });
      const starterDoc = await createLockableDocument(t.app, starter.tenantId);
      const noEntitlement = await call(
        t.baseUrl,
        'POST',
        `/documents/${starterDoc.documentId}/checkin`,
        { auth: starter.auth, body: { lock_token: mintToken('glk') } },
      );
      expect(noEntitlement.status).toBe(403);
      expect(noEntitlement.body.code).toBe('entitlement_required');
      expect(await openLocks(documentId)).toBe(0);
    });
  });

  describe('checkin', () => {
    it('releases the lock with 200, kills the token, and lets the next checkout in', async () => {
      const documentId = await newDocument();
      const lock = await checkoutAs(documentId);
      const res = await post(`/documents/${documentId}/checkin`, { lock_token: lock.lock_token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ documentId, released_at: expect.any(String) });
      expect(Date.parse(res.body.released_at)).toBeLessThanOrEqual(Date.now() + 1_000);
      expect(await openLocks(documentId)).toBe(0);

      const again = await post(`/documents/${documentId}/checkin`, { lock_token: lock.lock_token });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('lock_token_invalid');
      expect(again.text).not.toContain(lock.lock_token);

      await checkoutAs(documentId);
      const stale = await post(`/documents/${documentId}/checkin`, { lock_token: lock.lock_token });
      expect(stale.status).toBe(409);
      expect(await openLocks(documentId)).toBe(1);
    });

    it('answers 409 lock_token_invalid for a wrong, malformed or another document’s token', async () => {
      const documentId = await newDocument();
      const otherDocument = await newDocument();
      await checkoutAs(documentId);
      const otherLock = await checkoutAs(otherDocument);
      const valid = mintToken('glk');
      const badChecksum = valid.slice(0, -1) + (valid.endsWith('0') ? '1' : '0');
      for (const token of [mintToken('glk'), otherLock.lock_token, badChecksum, 'glk_short', 'x']) {
        const res = await post(`/documents/${documentId}/checkin`, { lock_token: token });
        withMessage(token, () => expect(res.status).toBe(409));
        expect(res.body.code).toBe('lock_token_invalid');
        if (token.length > 20) expect(res.text).not.toContain(token);
      }
      expect(await openLocks(documentId)).toBe(1);
      expect(await openLocks(otherDocument)).toBe(1);
    });

    it('answers 409 for the token of an expired lock', async () => {
      const documentId = await newDocument();
      const lock = await checkoutAs(documentId);
      await expireOpenLock(t.app, documentId);
      const res = await post(`/documents/${documentId}/checkin`, { lock_token: lock.lock_token });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('lock_token_invalid');
      const events = await eventsOf(t.app, caller.tenantId, ['document.checked_in']);
      expect(events.filter((e) => e.payload.data.documentId === documentId)).toEqual([]);
    });

    it('answers 400 when lock_token is missing, not a string, or joined by unknown fields', async () => {
      const documentId = await newDocument();
      const lock = await checkoutAs(documentId);
      for (const body of [{}, { lock_token: 42 }, { lock_token: lock.lock_token, extra: 1 }]) {
        const res = await post(`/documents/${documentId}/checkin`, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
      const empty = await call(t.baseUrl, 'POST', `/documents/${documentId}/checkin`, {
        auth: caller.auth,
      });
      expect(empty.status).toBe(400);
      expect(await openLocks(documentId)).toBe(1);
    });
  });

  describe('events', () => {
    it('publishes document.checked_out and document.checked_in with the values of the responses', async () => {
      const documentId = await newDocument();
      const lock = await checkoutAs(documentId, 45);
      const checkin = await post(`/documents/${documentId}/checkin`, {
        lock_token: lock.lock_token,
      });
      const events = (
        await eventsOf(t.app, caller.tenantId, ['document.checked_out', 'document.checked_in'])
      ).filter((e) => e.payload.data.documentId === documentId);
      expect(events.map((e) => e.type)).toEqual(['document.checked_out', 'document.checked_in']);
      expect(events[0]!.payload).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: 'document.checked_out',
        tenant_id: caller.tenantId,
        data: { documentId, expires_at: lock.expires_at },
      });
      expect(events[1]!.payload).toMatchObject({
        type: 'document.checked_in',
        tenant_id: caller.tenantId,
        data: { documentId, released_at: checkin.body.released_at },
      });
      expect(JSON.stringify(events)).not.toContain(lock.lock_token);
    });

    it('publishes nothing for a refused checkout', async () => {
      const documentId = await newDocument();
      await checkoutAs(documentId);
      expect((await post(`/documents/${documentId}/checkout`, {})).status).toBe(423);
      const events = await eventsOf(t.app, caller.tenantId, ['document.checked_out']);
      expect(events.filter((e) => e.payload.data.documentId === documentId)).toHaveLength(1);
    });
  });

  describe('expiry sweep', () => {
    it('releases expired locks and publishes document.lock_expired once for each', async () => {
      const documentId = await newDocument();
      const live = await newDocument();
      await checkoutAs(documentId);
      await checkoutAs(live);
      await expireOpenLock(t.app, documentId);
      const [expiresAt]: string[] = (
        await t.app
          .get(DataSource)
          .query(`SELECT expires_at FROM document_locks WHERE document_id = $1`, [documentId])
      ).map((r: { expires_at: Date }) => r.expires_at.toISOString());

      const locks = t.app.get(LocksService);
      // two concurrent sweeps (as two replicas would run) release and announce it once
      const [a, b] = await Promise.all([locks.sweepExpired(), locks.sweepExpired()]);
      expect(a + b).toBeGreaterThanOrEqual(1);
      expect(await openLocks(documentId)).toBe(0);
      expect(await openLocks(live)).toBe(1);

      const row: { release_reason: string; released_at: Date }[] = await t.app
        .get(DataSource)
        .query(`SELECT release_reason, released_at FROM document_locks WHERE document_id = $1`, [
          documentId,
        ]);
      expect(row).toEqual([{ release_reason: 'expired', released_at: new Date(expiresAt!) }]);

      const events = (await eventsOf(t.app, caller.tenantId, ['document.lock_expired'])).filter(
        (e) => e.payload.data.documentId === documentId,
      );
      expect(events).toHaveLength(1);
      expect(events[0]!.payload).toMatchObject({
        type: 'document.lock_expired',
        tenant_id: caller.tenantId,
        data: { documentId, expired_at: expiresAt },
      });

      await locks.sweepExpired();
      const after = await eventsOf(t.app, caller.tenantId, ['document.lock_expired']);
      expect(after.filter((e) => e.payload.data.documentId === documentId)).toHaveLength(1);
    });

    it('sweeps every tenant, each event in its own tenant', async () => {
      const other = await createCaller(t.app, { plan: 'professional' });
      const mine = await newDocument();
      const theirs = (await createLockableDocument(t.app, other.tenantId)).documentId;
      await checkoutAs(mine);
      await checkout(t.baseUrl, other, theirs);
      await expireOpenLock(t.app, mine);
      await expireOpenLock(t.app, theirs);
      expect(await t.app.get(LocksService).sweepExpired()).toBeGreaterThanOrEqual(2);
      const theirEvents = await eventsOf(t.app, other.tenantId, ['document.lock_expired']);
      expect(theirEvents.map((e) => e.payload.data.documentId)).toEqual([theirs]);
      const myEvents = await eventsOf(t.app, caller.tenantId, ['document.lock_expired']);
      expect(myEvents.map((e) => e.payload.data.documentId)).toContain(mine);
      expect(myEvents.map((e) => e.payload.data.documentId)).not.toContain(theirs);
    });

    it('runs on the schedule only when workers are enabled', async () => {
      expect(t.app.get(SchedulerRegistry).doesExist('interval', LOCK_SWEEP_INTERVAL)).toBe(true);
      const documentId = await newDocument();
      await checkoutAs(documentId);
      await expireOpenLock(t.app, documentId);
      const locks = t.app.get(LocksService);

      // this app runs with WORKERS_ENABLED=false: its tick leaves the lock alone
      await t.app.get(LockSweeper).tick();
      expect(await openLocks(documentId)).toBe(1);

      const enabled = Object.assign(new AppConfig(), { WORKERS_ENABLED: true });
      await new LockSweeper(enabled, locks).tick();
      expect(await openLocks(documentId)).toBe(0);
      const events = await eventsOf(t.app, caller.tenantId, ['document.lock_expired']);
      expect(events.filter((e) => e.payload.data.documentId === documentId)).toHaveLength(1);
    });
  });

  describe('writeAccess().assertWritable', () => {
    it('passes an unlocked document and its own token, and refuses any other with 423', async () => {
      const documentId = await newDocument();
      const locks = t.app.get(LocksService);
      const tx = t.app.get(TenantTransactions);
      const assert = (token: string | undefined) =>
        tx.runOpening(caller.tenantId, locks.writeAccess(caller.tenantId, documentId), (access) =>
          Promise.resolve(access.assertWritable(token)),
        );
      await expect(assert(undefined)).resolves.toBeUndefined();
      await expect(assert(mintToken('glk'))).resolves.toBeUndefined();
      const lock = await checkoutAs(documentId);
      await expect(assert(lock.lock_token)).resolves.toBeUndefined();
      await expect(assert(undefined)).rejects.toMatchObject({
        status: 423,
        code: 'document_locked',
        extensions: { expires_at: lock.expires_at },
      });
      await expect(assert(mintToken('glk'))).rejects.toMatchObject({ status: 423 });
      await expect(assert('garbage')).rejects.toMatchObject({ status: 423 });
      await expireOpenLock(t.app, documentId);
      await expect(assert(undefined)).resolves.toBeUndefined();
    });
  });

  describe('staging with a lock (POST /documents/{id}/external-revisions)', () => {
    const stage = (documentId: number, lockToken?: string) =>
      post(
        `/documents/${documentId}/external-revisions`,
        { content: { body: `proposal ${Math.random()}` } },
        lockToken === undefined ? {} : { 'lock-token': lockToken },
      );

    it('needs the live lock token on a locked document and nothing on an unlocked one', async () => {
      const unlocked = await newDocument();
      const free = await stage(unlocked);
      withMessage(free.text, () => expect(free.status).toBe(201));

      const documentId = await newDocument();
      const lock = await checkoutAs(documentId);
      const without = await stage(documentId);
      withMessage(without.text, () => expect(without.status).toBe(423));
      expect(without.body).toMatchObject({ code: 'document_locked', expires_at: lock.expires_at });
      expect(without.text).not.toContain(lock.lock_token);

      const wrong = await stage(documentId, mintToken('glk'));
      expect(wrong.status).toBe(423);
      expect(wrong.body.code).toBe('document_locked');

      const right = await stage(documentId, lock.lock_token);
      withMessage(right.text, () => expect(right.status).toBe(201));
      expect(right.body.documentId).toBe(documentId);
    });
  });

  it('documents both operations, their errors and the Lock-Token rule in the OpenAPI document', async () => {
    const res = await call(t.baseUrl, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const out = paths['/api/v1/documents/{documentId}/checkout'].post;
    const inn = paths['/api/v1/documents/{documentId}/checkin'].post;
    expect(Object.keys(out.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '423']),
    );
    expect(Object.keys(inn.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409']),
    );
    expect(out.description).toContain('Lock-Token');
    expect(out.requestBody.required).toBe(false);
    const schemas = res.body.components.schemas;
    expect(schemas.CheckoutRequestDto.properties.ttl_minutes).toMatchObject({
      minimum: 5,
      maximum: 240,
      default: 30,
    });
    expect(schemas.CheckoutResponseDto.properties.lock_token.example).toMatch(TOKEN_SHAPE);
    expect(schemas.CheckinRequestDto.required).toEqual(['lock_token']);
  });

  it('never writes a lock token to the logs', () => {
    expect(issuedTokens.length).toBeGreaterThan(10);
    const logs = t.logs.join('');
    for (const token of issuedTokens) expect(logs).not.toContain(token);
  });
});
