import { Injectable } from '@nestjs/common';
import { type Batch, type Sql, sql, type Statement } from '../../../common/database/statement.js';
import { TenantTransactions } from '../../../common/database/tenant-transactions.js';
import type { AlongCtes } from '../../webhooks/outbox/webhook-outbox.service.js';
import type { RevisionStatus } from '../revision-status.js';
import type { SupersededRow } from './revisions.repository.js';

/** What a decision writes on a candidate. */
export interface DecisionRecord {
  status: RevisionStatus;
  resultingVersionId: number | null;
  decidedBy: string;
  note: string | null;
}

/** Where a revision lives, found across tenants by its id alone. */
export interface RevisionLocation {
  tenant_id: number;
  document_id: number;
}

/** A candidate as a decision reads it, its row held; never its content. */
export interface DecidedRevisionRow {
  id: number;
  document_id: number;
  base_version_id: number;
  status: RevisionStatus;
  content_hash: string;
}

/** The candidate a decision holds and the other candidates staged on its document. */
export interface HeldRevision {
  rev: DecidedRevisionRow | undefined;
  /** Every other staged candidate of the document, in id order: what an accept supersedes. */
  siblings: SupersededRow[];
}

/** The accept's statement answers true, or fails (and its transaction with it). */
export interface AcceptWritten {
  consistent: true;
}

/**
 * `external_revisions` for decisions. Unless a method says otherwise it runs in the caller's
 * tenant transaction (`TenantTransactions.run`).
 */
@Injectable()
export class RevisionDecisionsRepository {
  constructor(private readonly tx: TenantTransactions) {}

  /** The revision's tenant and document, across tenants (owner role), in one plain statement. */
  async locate(revisionId: number): Promise<RevisionLocation | undefined> {
    const [row] = await this.tx.readAsSystem(
      sql<RevisionLocation>`SELECT tenant_id, document_id FROM external_revisions WHERE id = ${revisionId}`,
    );
    return row;
  }

  /**
   * For the round trip that opens the decision's transaction, after the document row is locked:
   * the revision, its row held (`FOR UPDATE`), and with `siblings` the document's other staged
   * candidates (which the document lock keeps as they are until the commit).
   */
  held(
    tenantId: number,
    documentId: number,
    revisionId: number,
    siblings: boolean,
  ): Batch<HeldRevision> {
    const rev = sql<DecidedRevisionRow>`
      SELECT id, document_id, base_version_id, status, content_hash FROM external_revisions
       WHERE tenant_id = ${tenantId} AND id = ${revisionId} FOR UPDATE`;
    const others = sql<SupersededRow>`
      SELECT id, base_version_id FROM external_revisions
       WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND status = 'staged'
         AND id <> ${revisionId}
       ORDER BY id`;
    return {
      statements: siblings ? [rev, others] : [rev],
      read: ([revs, rest]) => ({
        rev: revs?.[0] as DecidedRevisionRow | undefined,
        siblings: (rest ?? []) as readonly unknown[] as SupersededRow[],
      }),
    };
  }

  /** The candidate's content and hash, as the SELECT a new version copies them from. */
  contentOf(tenantId: number, revisionId: number): Sql {
    return sql`SELECT content, content_hash FROM external_revisions
                WHERE tenant_id = ${tenantId} AND id = ${revisionId}`;
  }

  /**
   * With `version` (the new version's CTEs): the candidate accepted with that version, and
   * `supersede` (its staged siblings) superseded, as CTEs of one statement. The events were made
   * from what the opening read, so the statement fails unless it wrote exactly that: the one
   * candidate, and every sibling (a version that was not inserted fails it too: the candidate's
   * foreign key is checked at its end). The document lock makes a failure a bug, never a race.
   */
  acceptCtes(
    tenantId: number,
    documentId: number,
    revisionId: number,
    decision: DecisionRecord,
    version: Sql,
    supersede: readonly number[],
  ): AlongCtes<AcceptWritten> {
    const { resultingVersionId, decidedBy, note } = decision;
    return {
      ctes: sql`${version}, accepted AS (
        UPDATE external_revisions
           SET status = 'accepted', resulting_version_id = ${resultingVersionId},
               decided_at = now(), decided_by = ${decidedBy}, decision_note = ${note}
         WHERE tenant_id = ${tenantId} AND id = ${revisionId} AND status = 'staged'
        RETURNING id
      ), superseded AS (
        UPDATE external_revisions SET status = 'superseded', decided_at = now()
         WHERE tenant_id = ${tenantId} AND document_id = ${documentId} AND status = 'staged'
           AND id = ANY(${supersede}::int[])
        RETURNING id
      )`,
      // a failed cast is the way a plain SQL statement raises an error; the subquery keeps the
      // planner from evaluating it when the statement is prepared
      columns: sql`CASE WHEN (SELECT count(*) FROM accepted) = 1
              AND ARRAY(SELECT id FROM superseded ORDER BY id) = ${supersede}::int[]
            THEN true
            ELSE (SELECT ('accept wrote other rows than it read: ' || count(*))::int FROM accepted) > 0
        END AS consistent`,
    };
  }

  /** The decision written on the candidate, as one statement for the caller to send. */
  record(
    tenantId: number,
    revisionId: number,
    decision: DecisionRecord,
  ): Statement<{ id: number }> {
    const { status, resultingVersionId, decidedBy, note } = decision;
    return sql<{ id: number }>`UPDATE external_revisions
          SET status = ${status}, resulting_version_id = ${resultingVersionId}, decided_at = now(),
              decided_by = ${decidedBy}, decision_note = ${note}
        WHERE tenant_id = ${tenantId} AND id = ${revisionId}
      RETURNING id`;
  }
}
