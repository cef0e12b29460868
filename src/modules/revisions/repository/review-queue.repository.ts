import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../../common/database/sql-json.js';
import { empty, fragment, type Sql, sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import {
  holdPageParts,
  keysetPage,
  type KeysetPageRow,
  type KeysetPageText,
} from '../../../common/pagination/keyset-page.js';
import type { ReviewQueueItemResponse } from '../platform/dto/review.response.js';
import type { RevisionStatus } from '../revision-status.js';
import type { ExternalRevision } from '../entities/external-revision.entity.js';
import { EXTERNAL_REVISION_ROW, REVISION_ITEM_MEMBERS } from './revisions.repository.js';

/** Which candidates the queue lists: one status, optionally one tenant and one document. */
export interface ReviewQueueFilter {
  status: RevisionStatus;
  tenantId?: number;
  documentId?: number;
}

/** A queue entry as the JSON text of one list item: the candidate without content and html. */
const QUEUE_ITEM = jsonObjectText({
  tenant_id: v.integer('r.tenant_id'),
  ...REVISION_ITEM_MEMBERS,
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
   * a statement shape of its own, walking the index made for it: `(status, id)` across tenants,
   * `(tenant_id, status, id)` for one tenant, `(document_id, id)` for one document (its other
   * candidates filtered out). The leading columns are bounded from both sides, not compared by
   * equality, and the rows ordered by the whole index key: then no plan can walk the primary key
   * and filter by status instead, which reads every decided candidate older than the queue
   * (the planner cannot know they are all older) and would on a generic plan.
   */
  async page(
    filter: ReviewQueueFilter,
    page: { after: number; limit: number },
  ): Promise<KeysetPageRow<ReviewQueueItemResponse> | undefined> {
    const { after, limit } = page;
    const { status, tenantId, documentId } = filter;
    let range: Sql;
    if (documentId !== undefined) {
      const tenant = tenantId === undefined ? empty : sql`AND x.tenant_id = ${tenantId}`;
      range = sql`x.document_id >= ${documentId} AND x.document_id <= ${documentId}
            AND (x.document_id, x.id) > (${documentId}, ${after}::bigint)
            AND x.status = ${status} ${tenant}
          ORDER BY x.document_id, x.id`;
    } else if (tenantId !== undefined) {
      range = sql`x.tenant_id >= ${tenantId} AND x.tenant_id <= ${tenantId}
            AND x.status >= ${status} AND x.status <= ${status}
            AND (x.tenant_id, x.status, x.id) > (${tenantId}, ${status}, ${after}::bigint)
          ORDER BY x.tenant_id, x.status, x.id`;
    } else {
      range = sql`x.status >= ${status} AND x.status <= ${status}
            AND (x.status, x.id) > (${status}, ${after}::bigint)
          ORDER BY x.status, x.id`;
    }
    const rows = await this.tx.query(
      sql<KeysetPageText<ReviewQueueItemResponse>>`${keysetPage({
        rows: sql`SELECT ${fragment(QUEUE_COLUMNS)} FROM external_revisions x
          WHERE ${range} LIMIT ${limit}::int + 1`,
        item: QUEUE_ITEM,
        order: 'ASC',
        limit,
      })}`,
    );
    holdPageParts(rows);
    return rows[0] as KeysetPageRow<ReviewQueueItemResponse> | undefined;
  }

  /** The candidate, whichever tenant's it is, with its content and html. */
  async find(revisionId: number): Promise<ExternalRevision | null> {
    const [row] = await this.tx.query(sql<ExternalRevision>`
      SELECT ${EXTERNAL_REVISION_ROW} FROM external_revisions WHERE id = ${revisionId}`);
    return row ?? null;
  }
}
