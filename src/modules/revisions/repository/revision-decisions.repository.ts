import { Injectable } from '@nestjs/common';
import { sql } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import { ExternalRevision } from '../entities/external-revision.entity.js';

/** What a decision writes on a candidate. */
export interface DecisionRecord {
  status: ExternalRevision['status'];
  resultingVersionId: number | null;
  decidedBy: string;
  note: string | null;
}

/**
 * `external_revisions` for decisions. Unless a method says otherwise it runs in the caller's
 * tenant transaction (`TenantTransactions.run`).
 */
@Injectable()
export class RevisionDecisionsRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /** The revision's tenant, across tenants: must run as the owner role (`runAsSystem`). */
  async tenantOf(revisionId: number): Promise<number | undefined> {
    const [row] = await this.tx.query(
      sql<{ tenant_id: number }>`SELECT tenant_id FROM external_revisions WHERE id = ${revisionId}`,
    );
    return row?.tenant_id;
  }

  /** The revision's document, read without a lock (the document row is locked first). */
  async documentOf(tenantId: number, revisionId: number): Promise<number | undefined> {
    const located = await this.tx.repo(ExternalRevision).findOne({
      where: { tenantId, id: revisionId },
      select: { id: true, documentId: true },
    });
    return located?.documentId;
  }

  /** The revision, its row held (`FOR UPDATE`) until the transaction ends. */
  lockRevision(tenantId: number, revisionId: number): Promise<ExternalRevision | null> {
    return this.tx.repo(ExternalRevision).findOne({
      where: { tenantId, id: revisionId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async record(tenantId: number, revisionId: number, decision: DecisionRecord): Promise<void> {
    const { status, resultingVersionId, decidedBy, note } = decision;
    await this.tx.query(sql`UPDATE external_revisions
          SET status = ${status}, resulting_version_id = ${resultingVersionId}, decided_at = now(),
              decided_by = ${decidedBy}, decision_note = ${note}
        WHERE tenant_id = ${tenantId} AND id = ${revisionId}`);
  }
}
