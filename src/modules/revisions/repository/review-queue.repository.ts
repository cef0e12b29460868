import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../../common/database/sql-json.js';
import { fragment, join, type Sql, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import {
  afterKey,
  holdPageParts,
  keysetPage,
  type KeysetPageRow,
  type KeysetPageText,
} from '../../../common/pagination/keyset-page.js';
import type { ReviewQueueItemResponse } from '../platform/dto/review.response.js';
import type { RevisionStatus } from '../revision-status.js';
import { ExternalRevision } from '../entities/external-revision.entity.js';

/** Which candidates the queue lists: one status, optionally one tenant and one document. */
export interface ReviewQueueFilter {
  status: RevisionStatus;
  tenantId?: number;
  documentId?: number;
}

/** A queue entry as the JSON text of one list item: the candidate without content and html. */
const QUEUE_ITEM = jsonObjectText({
  tenantId: v.integer('r.tenant_id'),
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

const QUEUE_COLUMNS = `x.id AS k, x.id, x.tenant_id, x.document_id, x.base_version_id, x.status,
       x.content_hash, x.source_reference, x.created_at, x.decided_at, x.decided_by,
       x.resulting_version_id, x.decision_note`;

/**
 * `external_revisions` as the platform's review queue sees them: across tenants. Every method
 * runs in the caller's cross-tenant read-only transaction (`TenantTransactions.readAcrossTenants`),
 * whose role's policies let it read every tenant's candidates; a tenant filter is a filter here,
 * not the row-level security pin.
 */
@Injectable()
export class ReviewQueueRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /**
   * One page of the queue, ascending id (oldest first), after the id `after`. Each filter set has
   * a statement shape of its own, so each is planned on the index made for it: `(status, id)`
   * across tenants, `(tenant_id, status, id)` for one tenant, `(document_id, id)` for one document.
   */
  async page(
    filter: ReviewQueueFilter,
    page: { after: number; limit: number },
  ): Promise<KeysetPageRow<ReviewQueueItemResponse> | undefined> {
    const { after, limit } = page;
    const where: Sql[] = [];
    if (filter.documentId !== undefined) where.push(sql`x.document_id = ${filter.documentId}`);
    if (filter.tenantId !== undefined) where.push(sql`x.tenant_id = ${filter.tenantId}`);
    where.push(sql`x.status = ${filter.status}`);
    where.push(afterKey('x.id', 'ASC', after));
    const rows = await this.tx.query(
      sql<KeysetPageText<ReviewQueueItemResponse>>`${keysetPage({
        rows: sql`SELECT ${fragment(QUEUE_COLUMNS)} FROM external_revisions x
          WHERE ${join(where, ' AND ')}
          ORDER BY x.id LIMIT ${limit}::int + 1`,
        item: QUEUE_ITEM,
        order: 'ASC',
        limit,
      })}`,
    );
    holdPageParts(rows);
    return rows[0] as KeysetPageRow<ReviewQueueItemResponse> | undefined;
  }

  /** The candidate, whichever tenant's it is, with its content and html. */
  find(revisionId: number): Promise<ExternalRevision | null> {
    return this.tx.repo(ExternalRevision).findOneBy({ id: revisionId });
  }
}
