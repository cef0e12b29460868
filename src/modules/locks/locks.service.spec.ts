import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import type { Principal } from '../../common/access/principal.js';
import { digest, mintToken } from '../../common/crypto/tokens.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { DocumentsService } from '../documents/documents.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import { LocksRepository } from './locks.repository.js';
import { LocksService } from './locks.service.js';

/**
 * The lock rules with their collaborators faked: who may write a locked document, what checkout
 * and checkin refuse, and what they announce. The SQL behind them (row locks, the partial unique
 * index, SKIP LOCKED) is PostgreSQL's and is tested in test/locks.e2e-spec.ts.
 */

const EXPIRES = new Date('2030-01-01T00:00:00.000Z');
const principal = { tenantId: 7, credential: { kind: 'client', id: 3, ref: 'client:3' } };

interface LiveLock {
  id: number;
  token_digest: Buffer;
  expires_at: Date;
}

function setUp(options: { live?: LiveLock; inserted?: boolean; expired?: number[] } = {}) {
  const published: Array<{ tenantId: number; type: string; data: unknown }> = [];
  const repository = {
    liveLock: jest.fn(() => ({ text: 'live lock', values: [] })),
    findLiveLock: jest.fn(async (_tenantId: number, _documentId: number) => options.live),
    insertLock: jest.fn(async (_lock: unknown) =>
      options.inserted === false ? undefined : { expires_at: EXPIRES },
    ),
    checkIn: jest.fn(async (_tenantId: number, _lockId: number) => ({ released_at: EXPIRES })),
    releaseExpiredOf: jest.fn(async () =>
      (options.expired ?? []).map((documentId) => ({
        document_id: documentId,
        expires_at: EXPIRES,
      })),
    ),
    tenantsWithExpired: jest.fn(async () => [1, 2, 3]),
    releaseExpiredBatch: jest.fn(async (tenantId: number) => {
      if (tenantId === 2) throw new Error('tenant 2 is broken');
      return [{ document_id: tenantId * 10, expires_at: EXPIRES }];
    }),
  };
  const tx = {
    run: (_tenantId: number, work: () => Promise<unknown>) => work(),
    runAsSystem: (work: () => Promise<unknown>) => work(),
  };
  const documents = {
    lockDocument: jest.fn(async (_tenantId: number, _documentId: number) => undefined),
  };
  const outbox = {
    publish: jest.fn(async (tenantId: number, type: string, data: unknown) => {
      published.push({ tenantId, type, data });
    }),
  };
  return { repository, tx, documents, outbox, published };
}

async function serviceOf(fakes: ReturnType<typeof setUp>): Promise<LocksService> {
  const module = await Test.createTestingModule({
    providers: [
      LocksService,
      { provide: TenantTransactions, useValue: fakes.tx },
      { provide: LocksRepository, useValue: fakes.repository },
      { provide: DocumentsService, useValue: fakes.documents },
      { provide: WebhookOutbox, useValue: fakes.outbox },
    ],
  }).compile();
  module.useLogger(false);
  return module.get(LocksService);
}

describe('LocksService: who may write a document', () => {
  const token = mintToken('glk');
  const live = { id: 1, token_digest: digest(token), expires_at: EXPIRES };

  it('lets anyone write an unlocked document', async () => {
    const service = await serviceOf(setUp());
    const access = service.writeAccess(7, 5).read([[]]);
    expect(() => access.assertWritable(undefined)).not.toThrow();
    expect(() => access.assertWritable(mintToken('glk'))).not.toThrow();
  });

  it("lets only the lock's own token write a locked document (423 otherwise)", async () => {
    const service = await serviceOf(setUp());
    const access = service.writeAccess(7, 5).read([[live]]);
    expect(() => access.assertWritable(token)).not.toThrow();
    for (const other of [undefined, mintToken('glk'), 'glk_not-a-token', mintToken('gat')]) {
      expect(() => access.assertWritable(other)).toThrow(
        expect.objectContaining({
          code: 'document_locked',
          extensions: expect.objectContaining({ expires_at: EXPIRES.toISOString() }),
        }),
      );
    }
  });
});

describe('LocksService.checkout', () => {
  it('stores only the digest of the token it answers, and announces the checkout', async () => {
    const fakes = setUp();
    const service = await serviceOf(fakes);
    const answer = await service.checkout(principal as Principal, 5, 15);
    expect(answer).toEqual({
      documentId: 5,
      lock_token: expect.stringMatching(/^glk_/),
      expires_at: EXPIRES.toISOString(),
    });
    expect(fakes.documents.lockDocument).toHaveBeenCalledWith(7, 5);
    expect(fakes.repository.insertLock).toHaveBeenCalledWith({
      tenantId: 7,
      documentId: 5,
      tokenDigest: digest(answer.lock_token),
      credentialRef: 'client:3',
      ttlMinutes: 15,
    });
    expect(fakes.published).toEqual([
      {
        tenantId: 7,
        type: 'document.checked_out',
        data: { documentId: 5, expires_at: EXPIRES.toISOString() },
      },
    ]);
  });

  it("releases the document's expired lock first, announcing it before the checkout", async () => {
    const fakes = setUp({ expired: [5] });
    await (await serviceOf(fakes)).checkout(principal as Principal, 5);
    expect(fakes.published.map((p) => p.type)).toEqual([
      'document.lock_expired',
      'document.checked_out',
    ]);
  });

  it("refuses with 423 and the live lock's expiry when another lock holds the document", async () => {
    const live = { id: 1, token_digest: digest(mintToken('glk')), expires_at: EXPIRES };
    const fakes = setUp({ inserted: false, live });
    const checkout = (await serviceOf(fakes)).checkout(principal as Principal, 5);
    await expect(checkout).rejects.toMatchObject({
      code: 'document_locked',
      extensions: { expires_at: EXPIRES.toISOString() },
    });
    expect(fakes.published).toEqual([]);
  });
});

describe('LocksService.checkin', () => {
  const token = mintToken('glk');
  const live = { id: 9, token_digest: digest(token), expires_at: EXPIRES };

  it('refuses a malformed token before looking any lock up', async () => {
    const fakes = setUp({ live });
    const checkin = (await serviceOf(fakes)).checkin(principal as Principal, 5, 'glk_short');
    await expect(checkin).rejects.toMatchObject({ code: 'lock_token_invalid' });
    expect(fakes.repository.findLiveLock).not.toHaveBeenCalled();
  });

  it('refuses a well-formed token that is not the live lock', async () => {
    const fakes = setUp({ live });
    const checkin = (await serviceOf(fakes)).checkin(principal as Principal, 5, mintToken('glk'));
    await expect(checkin).rejects.toMatchObject({ code: 'lock_token_invalid' });
    expect(fakes.repository.checkIn).not.toHaveBeenCalled();
  });

  it('refuses when there is no live lock', async () => {
    const checkin = (await serviceOf(setUp())).checkin(principal as Principal, 5, token);
    await expect(checkin).rejects.toMatchObject({ code: 'lock_token_invalid' });
  });

  it('releases the live lock with its own token and announces it', async () => {
    const fakes = setUp({ live });
    const answer = await (await serviceOf(fakes)).checkin(principal as Principal, 5, token);
    expect(answer).toEqual({ documentId: 5, released_at: EXPIRES.toISOString() });
    expect(fakes.repository.checkIn).toHaveBeenCalledWith(7, 9);
    expect(fakes.published.map((p) => p.type)).toEqual(['document.checked_in']);
  });
});

describe('LocksService.sweepExpired', () => {
  it("goes on with the other tenants when one tenant's sweep fails", async () => {
    const fakes = setUp();
    const released = await (await serviceOf(fakes)).sweepExpired();
    expect(released).toBe(2);
    expect(fakes.published).toEqual([
      {
        tenantId: 1,
        type: 'document.lock_expired',
        data: expect.objectContaining({ documentId: 10 }),
      },
      {
        tenantId: 3,
        type: 'document.lock_expired',
        data: expect.objectContaining({ documentId: 30 }),
      },
    ]);
  });
});
