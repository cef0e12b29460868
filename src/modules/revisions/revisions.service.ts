import { createHash } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import canonicalize from 'canonicalize';
import { isoTimestamp, jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { legacyStatement } from '../../common/database/legacy-statement.js';
import { type Batch, batches, batchOf, fragment, sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import {
  type FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import type { JsonText } from '../../common/http/json-text.js';
import { findTextProblem, memberPath } from '../../common/http/text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import {
  cursorPageOf,
  childPageSql,
  firstKey,
  type KeysetPageRow,
} from '../../common/pagination/keyset-page.js';
import type { Principal } from '../auth/principal.js';
import { canonicalJson, hashOfCanonical } from '../documents/content-hash.js';
import { DocumentService } from '../documents/documents.service.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.service.js';
import type { ExternalRevisionEventData } from '../events/event-catalog.js';
import type { EventType } from '../events/event-types.js';
import { LocksService } from '../locks/locks.service.js';
import type {
  RevisionDetailDto,
  RevisionSummaryDto,
  StagedRevisionDto,
} from './dto/revision.dto.js';
import type { StageRevisionDto } from './dto/stage-revision.dto.js';
import { ExternalRevision } from './entities/external-revision.entity.js';
import { IdempotencyStore, type IdempotencyScope } from './idempotency.store.js';
import { VersionConflictError } from './revisions.errors.js';
import {
  type IfMatch,
  ifMatchSatisfied,
  parseIdempotencyKey,
  parseIfMatch,
} from './staging-headers.js';

/** The headers of a staging request that change what it does. */
export interface StagingHeaders {
  ifMatch?: string;
  lockToken?: string;
  idempotencyKey?: string;
}

export interface StagingResult {
  status: number;
  body: StagedRevisionDto;
  location: string;
}

export function revisionLocation(documentId: number, revisionId: number): string {
  return `/api/v1/documents/${documentId}/external-revisions/${revisionId}`;
}

/**
 * Candidate external revisions: staging (the one write the API allows), reads, and keeping staged
 * candidates honest when the document moves on. Deciding lives in `RevisionDecisionService`.
 */
@Injectable()
export class RevisionsService implements OnModuleInit {
  private listSql: string | undefined;

  constructor(
    private readonly tx: TenantTransactions,
    private readonly documents: DocumentService,
    private readonly locks: LocksService,
    private readonly events: WebhookOutbox,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** Whoever creates a version (an accept here, or the platform), stale candidates are superseded. */
  onModuleInit(): void {
    this.documents.onVersionCreated(async (tenantId, documentId, versionId) => {
      await this.supersedeStale(tenantId, documentId, versionId);
    });
  }

  /**
   * Stages a candidate. The base check and the insert run in one transaction holding the document
   * row (shared), the row `DocumentService.createVersion` locks exclusively, so no version can be
   * created between the check and the commit: a 201 was staged against the version current at its
   * commit. Two round trips: the opening reads, then the candidate with its event and the COMMIT
   * (pipelined); a third with an idempotency key.
   */
  async stage(
    principal: Principal,
    documentId: number,
    dto: StageRevisionDto,
    headers: StagingHeaders,
  ): Promise<StagingResult> {
    // every request-level refusal (400) comes before any resource is touched
    const ifMatch = parseIfMatch(headers.ifMatch);
    const key = parseIdempotencyKey(headers.idempotencyKey);
    const { json, hash } = storableContent(dto.content);
    const { tenantId } = principal;
    const scope: IdempotencyScope | undefined = key
      ? {
          tenantId,
          credentialRef: principal.credential.ref,
          route: `POST /documents/${documentId}/external-revisions`,
          key,
        }
      : undefined;

    // One round trip opens the transaction, takes the document row (shared: stagings on one
    // document run side by side; a new version (FOR UPDATE) waits for them and they wait for it,
    // so the base check below cannot be overtaken), reads its lock and draws the candidate's id.
    const opening = batches(
      batches(
        this.documents.shareLockedDocument(tenantId, documentId),
        this.locks.writeAccess(tenantId, documentId),
      ),
      NEXT_REVISION_ID,
    );
    return this.tx.runOpening(tenantId, opening, async ([[doc, access], revisionId]) => {
      if (scope) {
        const claim = await this.idempotency.claim(scope, requestHash(dto, ifMatch, headers));
        if (claim.replay) {
          const body = claim.body as unknown as StagedRevisionDto;
          return {
            status: claim.status,
            body,
            location: revisionLocation(body.documentId, body.revisionId),
          };
        }
      }
      access.assertWritable(headers.lockToken);

      const current = doc.currentVersionId;
      const base = dto.base_version_id ?? current;
      if (dto.base_version_id !== undefined && dto.base_version_id !== null) {
        const version = await this.documents.getVersion(tenantId, documentId, base);
        if (!version) {
          throw new ValidationFailedError([
            { field: 'base_version_id', message: 'is not a version of this document' },
          ]);
        }
      }
      if (base !== current) {
        throw new VersionConflictError(
          `base version ${base} is no longer current (current: ${current})`,
          base,
          current,
        );
      }
      if (ifMatch && !ifMatchSatisfied(ifMatch, doc.currentContentHash)) {
        throw new VersionConflictError(
          `If-Match does not match the content hash of the current version ${current}`,
          base,
          current,
        );
      }

      // The candidate and its event in ONE statement (the id was drawn in the opening round trip,
      // so the event can name it); plain SQL, as TypeORM's save() deep-copies the content.
      const staged = {
        id: revisionId,
        documentId,
        baseVersionId: base,
        status: 'staged' as const,
        resultingVersionId: null,
      };
      const insert = sql<{ created_at: string }>`
        INSERT INTO external_revisions (id, tenant_id, document_id, base_version_id, status,
               content, content_hash, html, source_reference, credential_ref)
        VALUES (${revisionId}, ${tenantId}, ${documentId}, ${base}, 'staged', ${json}::jsonb,
                ${hash}, ${dto.html ?? null}, ${dto.source_reference ?? null},
                ${principal.credential.ref})
        RETURNING ${fragment(isoTimestamp('created_at'))} AS created_at`;
      const { statement } = this.events.append(
        tenantId,
        'external_revision.staged',
        revisionEventData(staged, doc.projectId),
        insert,
      );
      // with an idempotency key, the key's completion below is the last statement
      const [row] = await (scope ? this.tx.query(statement) : this.tx.queryAndCommit(statement));
      const createdAt = row?.along?.[0]?.created_at;
      if (typeof createdAt !== 'string') throw new Error('the staged candidate was not returned');
      const body: StagedRevisionDto = {
        revisionId,
        documentId,
        base_version_id: base,
        status: 'staged',
        content_hash: hash,
        source_reference: dto.source_reference ?? null,
        created_at: createdAt,
      };
      if (scope) await this.idempotency.complete(scope, 201, { ...body });
      return { status: 201, body, location: revisionLocation(documentId, revisionId) };
    });
  }

  /**
   * GET /documents/{documentId}/external-revisions: candidates of a document, ascending id,
   * without content and html, one page; 404 for an unknown or foreign document. One statement in
   * one round trip.
   */
  async list(
    tenantId: number,
    documentId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<RevisionSummaryDto>>> {
    const identity = { tenantId, list: 'document.external_revisions', scope: [documentId] };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    this.listSql ??= revisionPageSql(this.documents.documentExistsSql('$1', '$2'));
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<RevisionSummaryDto> & { found: boolean }>(this.listSql, [
        tenantId,
        documentId,
        after,
        page.limit,
      ]),
    );
    if (!rows[0]?.found) throw new NotFoundError('document');
    return cursorPageOf(rows[0], identity);
  }

  /** One candidate with its content and html; 404 for unknown, foreign or of another document. */
  get(tenantId: number, documentId: number, revisionId: number): Promise<RevisionDetailDto> {
    return this.tx.run(tenantId, async () => {
      const row = await this.tx
        .repo(ExternalRevision)
        .findOneBy({ tenantId, documentId, id: revisionId });
      if (!row) throw new NotFoundError('revision');
      return { ...summaryView(row), content: row.content, html: row.html };
    });
  }

  /**
   * Marks every staged candidate of the document whose base is not `currentVersionId` as
   * superseded and publishes `external_revision.superseded` for each. Must run inside
   * `TenantTransactions.run`, in the transaction that created the version (document row held).
   * Any code creating a version through `DocumentService.createVersion` should call it.
   */
  async supersedeStale(
    tenantId: number,
    documentId: number,
    currentVersionId: number,
  ): Promise<number[]> {
    const doc = await this.documents.requireDocument(tenantId, documentId);
    const rows: Array<{ id: number; base_version_id: number }> = await this.tx.manager.query(
      // a CTE, so the driver answers rows (a bare UPDATE … RETURNING comes back as [rows, count])
      `WITH s AS (
         UPDATE external_revisions SET status = 'superseded', decided_at = now()
          WHERE tenant_id = $1 AND document_id = $2 AND status = 'staged'
            AND base_version_id <> $3
         RETURNING id, base_version_id
       )
       SELECT id, base_version_id FROM s ORDER BY id`,
      [tenantId, documentId, currentVersionId],
    );
    for (const r of rows) {
      await this.events.publish(tenantId, 'external_revision.superseded', {
        revisionId: r.id,
        documentId,
        projectId: doc.projectId,
        status: 'superseded',
        base_version_id: r.base_version_id,
        resulting_version_id: null,
      });
    }
    return rows.map((r) => r.id);
  }

  /** `external_revision.*` payload (CONTRACT.md §7): every key present, null where no value. */
  async publish(
    tenantId: number,
    type: Extract<EventType, `external_revision.${string}`>,
    row: Pick<
      ExternalRevision,
      'id' | 'documentId' | 'status' | 'baseVersionId' | 'resultingVersionId'
    >,
    projectId: number,
  ): Promise<void> {
    await this.events.publish(tenantId, type, revisionEventData(row, projectId));
  }
}

/** `external_revision.*` payload (CONTRACT.md §7): every key present, null where no value. */
function revisionEventData(
  row: Pick<
    ExternalRevision,
    'id' | 'documentId' | 'status' | 'baseVersionId' | 'resultingVersionId'
  >,
  projectId: number,
): ExternalRevisionEventData {
  return {
    revisionId: row.id,
    documentId: row.documentId,
    projectId,
    status: row.status,
    base_version_id: row.baseVersionId,
    resulting_version_id: row.resultingVersionId ?? null,
  };
}

/** The next candidate id, drawn in the opening round trip so its event can be written with it. */
const NEXT_REVISION_ID: Batch<number> = batchOf(
  sql<{ id: string }>`SELECT nextval(pg_get_serial_sequence('external_revisions', 'id')) AS id`,
  (rows) => Number(rows[0]?.id),
);

/**
 * The content as canonical JSON (sent as the `jsonb` parameter: one serialisation serves both)
 * and its hash, refusing content PostgreSQL or JSON cannot store faithfully as a 400 naming the
 * path instead of a 500: U+0000 or a lone surrogate in a string or key (also refused by the
 * validation pipe), a number beyond double range that JSON.parse turned into Infinity.
 */
function storableContent(content: Record<string, unknown>): { json: string; hash: string } {
  const problem = contentProblem(content);
  if (problem) throw new ValidationFailedError([problem]);
  const json = canonicalJson(content);
  return { json, hash: hashOfCanonical(json) };
}

function contentProblem(content: unknown): FieldError | null {
  const text = findTextProblem(content, 'content');
  if (text) return text;
  const stack: Array<{ value: unknown; field: string }> = [{ value: content, field: 'content' }];
  while (stack.length > 0) {
    const { value, field } = stack.pop()!;
    if (typeof value === 'number' && !Number.isFinite(value)) {
      return { field, message: 'must be a finite number within the range of a double' };
    }
    if (value === null || typeof value !== 'object') continue;
    const array = Array.isArray(value);
    for (const key of Object.keys(value)) {
      stack.push({
        value: (value as Record<string, unknown>)[key],
        field: memberPath(field, array ? Number(key) : key),
      });
    }
  }
  return null;
}

/**
 * What makes two requests with one Idempotency-Key "the same": the canonical JSON of the body
 * (an absent optional field equals null) plus the normalised If-Match and whether a Lock-Token
 * was sent (not its value: a retry after renewing a lock is still the same request).
 */
function requestHash(
  dto: StageRevisionDto,
  ifMatch: IfMatch | undefined,
  h: StagingHeaders,
): string {
  const canonical = canonicalize({
    body: {
      content: dto.content,
      base_version_id: dto.base_version_id ?? null,
      html: dto.html ?? null,
      source_reference: dto.source_reference ?? null,
    },
    if_match: ifMatch ? (ifMatch.any ? '*' : [...ifMatch.hashes].sort()) : null,
    lock_token: h.lockToken !== undefined,
  });
  return createHash('sha256')
    .update(canonical ?? '', 'utf8')
    .digest('hex');
}

function stagedView(r: ExternalRevision): StagedRevisionDto {
  return {
    revisionId: r.id,
    documentId: r.documentId,
    base_version_id: r.baseVersionId,
    status: r.status,
    content_hash: r.contentHash,
    source_reference: r.sourceReference,
    created_at: r.createdAt.toISOString(),
  };
}

function summaryView(r: ExternalRevision): RevisionSummaryDto {
  return {
    ...stagedView(r),
    decided_at: r.decidedAt ? r.decidedAt.toISOString() : null,
    decided_by: r.decidedBy,
    resulting_version_id: r.resultingVersionId,
    decision_note: r.decisionNote,
  };
}

const REVISION_ITEM = jsonObjectText({
  revisionId: v.integer('r.id'),
  documentId: v.integer('r.document_id'),
  base_version_id: v.integer('r.base_version_id'),
  status: v.text('r.status'),
  content_hash: v.text('r.content_hash'),
  source_reference: v.text('r.source_reference'),
  created_at: v.timestamp('r.created_at'),
  decided_at: v.timestamp('r.decided_at'),
  decided_by: v.text('r.decided_by'),
  resulting_version_id: v.integer('r.resulting_version_id'),
  decision_note: v.text('r.decision_note'),
});

/**
 * `documentExists`: the documents context's test that $2 is a document of tenant $1. Content and
 * html are never read. $1 tenant, $2 document, $3 the revisionId after which the page starts,
 * $4 limit.
 */
const revisionPageSql = (documentExists: string): string =>
  childPageSql({
    parentFound: documentExists,
    table: 'external_revisions',
    alias: 'x',
    parentColumn: 'document_id',
    columns: `x.id, x.document_id, x.base_version_id, x.status, x.content_hash,
              x.source_reference, x.created_at, x.decided_at, x.decided_by,
              x.resulting_version_id, x.decision_note`,
    item: REVISION_ITEM,
  });
