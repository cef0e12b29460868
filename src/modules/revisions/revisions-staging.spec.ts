import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import type { Principal } from '../../common/access/principal.js';
import type { Batch } from '../../common/database/statement.js';
import { sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { DocumentsService } from '../documents/documents.service.js';
import { LocksService } from '../locks/locks.service.js';
import { DocumentLockedError } from '../locks/locks.errors.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import type { StageRevisionRequest } from './dto/stage-revision.request.js';
import { IdempotencyStore } from './idempotency.store.js';
import { RevisionsRepository } from './repository/revisions.repository.js';
import { RevisionsService } from './revisions.service.js';

/**
 * The staging rules of `RevisionsService.stage` with its collaborators faked: what is refused
 * (400, 409, 423) and in which order, what is staged against which base, and how an idempotency
 * key replays. The transaction, the document row lock and the statements are PostgreSQL's, tested
 * in test/revisions.e2e-spec.ts and test/revisions-concurrency.e2e-spec.ts.
 */

const CURRENT_HASH = 'b'.repeat(64);
const CREATED_AT = '2030-01-01T00:00:00.000Z';
const principal = { tenantId: 7, credential: { kind: 'client', id: 3, ref: 'client:3' } };
const doc = { documentId: 5, projectId: 2, currentVersionId: 11, currentContentHash: CURRENT_HASH };

/** A batch of no statements whose value is `value` (the fake transaction reads it). */
const valueOf = <T>(value: T): Batch<T> => ({ statements: [], read: () => value });

function setUp(options: { locked?: boolean; versions?: number[]; replay?: boolean } = {}) {
  const committed: string[] = [];
  const tx = {
    runOpening: jest.fn(
      (_tenantId: number, opening: Batch<unknown>, work: (read: unknown) => Promise<unknown>) =>
        work(opening.read([])),
    ),
    query: jest.fn(async (_statement: unknown) => {
      committed.push('query');
      return [{ along: [{ created_at: CREATED_AT }] }];
    }),
    queryAndCommit: jest.fn(async (_statement: unknown) => {
      committed.push('queryAndCommit');
      return [{ along: [{ created_at: CREATED_AT }] }];
    }),
  };
  const documents = {
    shareLockedDocument: () => valueOf(doc),
    getVersion: jest.fn(async (_t: number, _d: number, versionId: number) =>
      (options.versions ?? [11]).includes(versionId) ? { versionId } : undefined,
    ),
    onVersionCreated: () => undefined,
  };
  const locks = {
    writeAccess: () =>
      valueOf({
        assertWritable: (token: string | undefined) => {
          if (options.locked && token !== 'the-lock-token') {
            throw new DocumentLockedError(new Date(CREATED_AT));
          }
        },
      }),
  };
  const repository = {
    nextRevisionId: () => valueOf(99),
    insertStaged: jest.fn((_row: Record<string, unknown>) => sql`INSERT`),
  };
  const outbox = {
    append: jest.fn((_tenantId: number, _type: string, _data: unknown, statement: unknown) => ({
      statement,
    })),
  };
  const idempotency = {
    claim: jest.fn(async (_scope: unknown, _hash: string) =>
      options.replay
        ? { replay: true, status: 201, body: { documentId: 5, revisionId: 42, replayed: true } }
        : { replay: false },
    ),
    complete: jest.fn(async (_scope: unknown, _status: number, _body: unknown) => undefined),
  };
  return { tx, documents, locks, repository, outbox, idempotency, committed };
}

async function stage(
  fakes: ReturnType<typeof setUp>,
  dto: Partial<StageRevisionRequest> = {},
  headers: { ifMatch?: string; lockToken?: string; idempotencyKey?: string } = {},
) {
  const module = await Test.createTestingModule({
    providers: [
      RevisionsService,
      { provide: TenantTransactions, useValue: fakes.tx },
      { provide: RevisionsRepository, useValue: fakes.repository },
      { provide: DocumentsService, useValue: fakes.documents },
      { provide: LocksService, useValue: fakes.locks },
      { provide: WebhookOutbox, useValue: fakes.outbox },
      { provide: IdempotencyStore, useValue: fakes.idempotency },
    ],
  }).compile();
  const request = { content: { title: 'x' }, ...dto };
  return module.get(RevisionsService).stage(principal as Principal, 5, request, headers);
}

describe('RevisionsService.stage: what is staged', () => {
  it('stages against the current version when no base is named, and commits with its event', async () => {
    const fakes = setUp();
    const result = await stage(fakes, { source_reference: 'ext-1' });
    expect(result).toEqual({
      status: 201,
      location: '/api/v1/documents/5/external-revisions/99',
      body: {
        revisionId: 99,
        documentId: 5,
        base_version_id: 11,
        status: 'staged',
        content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        source_reference: 'ext-1',
        created_at: CREATED_AT,
      },
    });
    expect(fakes.repository.insertStaged).toHaveBeenCalledWith(
      expect.objectContaining({ id: 99, tenantId: 7, documentId: 5, baseVersionId: 11 }),
    );
    expect(fakes.outbox.append).toHaveBeenCalledWith(
      7,
      'external_revision.staged',
      expect.objectContaining({ revisionId: 99 }),
      expect.anything(),
    );
    // no idempotency key: the candidate's statement is the last, its COMMIT pipelined behind it
    expect(fakes.committed).toEqual(['queryAndCommit']);
  });

  it('stages against a named base that is the current version', async () => {
    const result = await stage(setUp(), { base_version_id: 11 });
    expect(result.body.base_version_id).toBe(11);
  });

  it('accepts an If-Match naming the current content hash, or *', async () => {
    for (const ifMatch of [`"${CURRENT_HASH}"`, '*']) {
      await expect(stage(setUp(), {}, { ifMatch })).resolves.toMatchObject({ status: 201 });
    }
  });
});

describe('RevisionsService.stage: what is refused', () => {
  it('refuses a malformed Idempotency-Key or If-Match (400) before touching anything', async () => {
    for (const headers of [{ idempotencyKey: '' }, { ifMatch: 'W/"abc"' }]) {
      const fakes = setUp();
      await expect(stage(fakes, {}, headers)).rejects.toMatchObject({ code: 'validation_failed' });
      expect(fakes.tx.runOpening).not.toHaveBeenCalled();
    }
  });

  it('refuses a base that is not a version of the document (400)', async () => {
    const fakes = setUp({ versions: [11] });
    await expect(stage(fakes, { base_version_id: 3 })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(fakes.committed).toEqual([]);
  });

  it('refuses a base that is no longer current (409 version_conflict)', async () => {
    const fakes = setUp({ versions: [10, 11] });
    await expect(stage(fakes, { base_version_id: 10 })).rejects.toMatchObject({
      code: 'version_conflict',
    });
    expect(fakes.committed).toEqual([]);
  });

  it('refuses an If-Match that names another content (409 version_conflict)', async () => {
    const fakes = setUp();
    const stale = `"${'a'.repeat(64)}"`;
    await expect(stage(fakes, {}, { ifMatch: stale })).rejects.toMatchObject({
      code: 'version_conflict',
    });
    expect(fakes.committed).toEqual([]);
  });

  it('refuses a locked document without its lock token (423), and stages with it', async () => {
    const fakes = setUp({ locked: true });
    await expect(stage(fakes)).rejects.toMatchObject({ code: 'document_locked' });
    expect(fakes.committed).toEqual([]);
    const withToken = await stage(setUp({ locked: true }), {}, { lockToken: 'the-lock-token' });
    expect(withToken.status).toBe(201);
  });
});

describe('RevisionsService.stage: idempotency keys', () => {
  it('replays the first answer of a key, staging nothing (even if the document is locked since)', async () => {
    const fakes = setUp({ replay: true, locked: true });
    const result = await stage(fakes, {}, { idempotencyKey: 'k-1' });
    expect(result).toEqual({
      status: 201,
      body: { documentId: 5, revisionId: 42, replayed: true },
      location: '/api/v1/documents/5/external-revisions/42',
    });
    expect(fakes.repository.insertStaged).not.toHaveBeenCalled();
    expect(fakes.committed).toEqual([]);
  });

  it("records the answer under the caller's key, as the transaction's last statement", async () => {
    const fakes = setUp();
    await stage(fakes, {}, { idempotencyKey: 'k-2' });
    expect(fakes.idempotency.claim).toHaveBeenCalledWith(
      {
        tenantId: 7,
        credentialRef: 'client:3',
        route: 'POST /documents/5/external-revisions',
        key: 'k-2',
      },
      expect.any(String),
    );
    expect(fakes.committed).toEqual(['query']);
    expect(fakes.idempotency.complete).toHaveBeenCalledWith(
      expect.objectContaining({ key: 'k-2' }),
      201,
      expect.objectContaining({ revisionId: 99, status: 'staged' }),
    );
  });
});
