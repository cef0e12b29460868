import { Injectable } from '@nestjs/common';
import type { JsonbParam } from '../../../common/http/canonical-json.js';
import { isoTimestamp, jsonObjectText, jsonValue as v } from '../../../common/database/sql-json.js';
import {
  type Batch,
  batchOf,
  fragment,
  type Sql,
  sql,
  type Statement,
} from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { PageReads } from '../../../common/database/page-reads.js';
import {
  type ChildPageRow,
  type ChildPageText,
  childPage,
} from '../../../common/pagination/keyset-page.js';
import type { RevisionSummaryResponse } from '../dto/revision.response.js';
import type { ExternalRevision } from '../entities/external-revision.entity.js';

/** A candidate as staging writes it. */
export interface StagedCandidate {
  id: number;
  tenantId: number;
  documentId: number;
  baseVersionId: number;
  /** Canonical JSON, sent as the `jsonb` parameter (text, or its binary form). */
  json: JsonbParam;
  contentHash: string;
  html: string | null;
  sourceReference: string | null;
  credentialRef: string;
}

export interface SupersededRow {
  id: number;
  base_version_id: number;
}

/**
 * Every column of a candidate, as the entity names its members (`ExternalRevision`), content and
 * html included; the review queue's repository reads candidates with it too.
 */
export const EXTERNAL_REVISION_ROW = fragment(`id, tenant_id AS "tenantId",
       document_id AS "documentId", base_version_id AS "baseVersionId", status, content,
       content_hash AS "contentHash", html, source_reference AS "sourceReference",
       credential_ref AS "credentialRef", decided_at AS "decidedAt", decided_by AS "decidedBy",
       decision_note AS "decisionNote", resulting_version_id AS "resultingVersionId",
       created_at AS "createdAt"`);

/** A candidate's list-item members: the candidate without content and html. */
export const REVISION_ITEM_MEMBERS = {
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
};

/** Candidates without content and html, as the JSON text of one list item. */
const REVISION_ITEM = jsonObjectText(REVISION_ITEM_MEMBERS);

/**
 * `external_revisions` for staging, reads and supersession. Unless a method says otherwise it runs
 * in the caller's transaction (`TenantTransactions.run`).
 */
@Injectable()
export class RevisionsRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

  /** The next candidate id, drawn in the opening round trip so its event can be written with it. */
  nextRevisionId(): Batch<number> {
    return NEXT_REVISION_ID;
  }

  /** The candidate's INSERT, `RETURNING` its `created_at` as ISO text, for the caller to send. */
  insertStaged(c: StagedCandidate): Statement<{ created_at: string }> {
    return sql<{ created_at: string }>`
        INSERT INTO external_revisions (id, tenant_id, document_id, base_version_id, status,
               content, content_hash, html, source_reference, credential_ref)
        VALUES (${c.id}, ${c.tenantId}, ${c.documentId}, ${c.baseVersionId}, 'staged', ${c.json}::jsonb,
                ${c.contentHash}, ${c.html}, ${c.sourceReference},
                ${c.credentialRef})
        RETURNING ${fragment(isoTimestamp('created_at'))} AS created_at`;
  }

  /**
   * One page of a document's candidates, ascending id, after `after`, with `found` from
   * `documentExists` (the documents context's test that the document is the tenant's): one
   * statement in a read-only transaction of its own (`readOnce`). Content and html are never read.
   */
  async page(
    documentExists: Sql,
    tenantId: number,
    documentId: number,
    page: { after: number; limit: number },
  ): Promise<ChildPageRow<RevisionSummaryResponse> | undefined> {
    const [row] = await this.pages.read<ChildPageText<RevisionSummaryResponse>>(
      tenantId,
      page.limit,
      childPage({
        parentFound: documentExists,
        table: 'external_revisions',
        alias: 'x',
        parentColumn: 'document_id',
        columns: `x.id, x.document_id, x.base_version_id, x.status, x.content_hash,
              x.source_reference, x.created_at, x.decided_at, x.decided_by,
              x.resulting_version_id, x.decision_note`,
        item: REVISION_ITEM,
        tenantId,
        parentId: documentId,
        ...page,
      }),
    );
    return row;
  }

  /** The document's candidate with its content and html, or null. */
  async findRevision(
    tenantId: number,
    documentId: number,
    revisionId: number,
  ): Promise<ExternalRevision | null> {
    const [row] = await this.tx.query(sql<ExternalRevision>`
      SELECT ${EXTERNAL_REVISION_ROW} FROM external_revisions
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND id = ${revisionId}`);
    return row ?? null;
  }

  /**
   * Marks the document's staged candidates whose base is not `currentVersionId` superseded; they
   * come back in id order.
   */
  supersedeStale(
    tenantId: number,
    documentId: number,
    currentVersionId: number,
  ): Promise<SupersededRow[]> {
    // a CTE, so the rows can be ordered (UPDATE … RETURNING cannot)
    return this.tx.query(sql<SupersededRow>`WITH s AS (
         UPDATE external_revisions SET status = 'superseded', decided_at = now()
          WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND status = 'staged'
            AND base_version_id <> ${currentVersionId}
         RETURNING id, base_version_id
       )
       SELECT id, base_version_id FROM s ORDER BY id`);
  }
}

const NEXT_REVISION_ID: Batch<number> = batchOf(
  sql<{ id: string }>`SELECT nextval('external_revisions_id_seq') AS id`,
  (rows) => Number(rows[0]?.id),
);
