import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AttemptOutcome } from '../delivery/attempt-outcome.js';
import { sql, type Statement } from '../../../common/database/statement.js';
import { updatedRows } from './sql-rows.js';

/** A webhook the results paused, with why; `status_reason` null: not paused by them. */
export interface PausedRow {
  id: number;
  tenant_id: number;
  status_reason: 'gone' | 'failing' | null;
}

/** One array per outcome field; `disableAfterMs`: `WEBHOOK_DISABLE_AFTER` in milliseconds. */
const writeResultsStatement = (
  batch: readonly AttemptOutcome[],
  disableAfterMs: number,
): Statement<PausedRow> => sql`WITH r AS (
         SELECT * FROM unnest(${batch.map((o) => o.id)}::bigint[], ${batch.map((o) => o.tenantId)}::int[],
                              ${batch.map((o) => o.lease)}::timestamptz[],
                              ${batch.map((o) => o.nextStatus)}::text[],
                              ${batch.map((o) => o.responseStatus)}::int[],
                              ${batch.map((o) => o.error)}::text[],
                              ${batch.map((o) => o.durationMs)}::int[],
                              ${batch.map((o) => o.attemptedAt)}::timestamptz[],
                              ${batch.map((o) => o.delayMs)}::bigint[],
                              ${batch.map((o) => o.gone)}::bool[],
                              ${batch.map((o) => o.responseBodyExcerpt)}::text[])
           AS r(id, tenant_id, lease, next_status, response_status, error, duration_ms,
                attempted_at, delay_ms, gone, response_body_excerpt)
       ), attempts AS (
         INSERT INTO webhook_delivery_attempts
                (tenant_id, delivery_id, attempted_at, response_status, error, duration_ms,
                 response_body_excerpt)
         SELECT tenant_id, id, attempted_at, response_status, error, duration_ms,
                response_body_excerpt FROM r
          WHERE next_status <> 'released'
            -- a delivery removed meanwhile (the testing kit's reset) has no attempt to keep; its
            -- row would fail the whole batch, other tenants' results with it
            AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = r.id)
       ), moved AS (
         UPDATE webhook_deliveries d
            SET status = CASE WHEN r.next_status <> 'succeeded' AND w.status = 'revoked'
                                THEN 'cancelled'
                              WHEN r.next_status = 'released'
                                THEN CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END
                              ELSE r.next_status END,
                attempts = d.attempts + (r.next_status <> 'released')::int,
                last_attempt_at = CASE WHEN r.next_status = 'released' THEN d.last_attempt_at
                                       ELSE r.attempted_at END,
                last_response_status = CASE WHEN r.next_status = 'released'
                                            THEN d.last_response_status
                                            ELSE r.response_status END,
                last_error = CASE WHEN r.next_status = 'released' THEN d.last_error
                                  ELSE r.error END,
                next_attempt_at = CASE WHEN r.delay_ms IS NULL THEN d.next_attempt_at
                                       ELSE now() + r.delay_ms * interval '1 millisecond' END,
                lease_expires_at = NULL,
                holds_slot = true,
                updated_at = now()
           FROM r, webhooks w
          WHERE d.id = r.id AND d.status = 'sending' AND d.lease_expires_at = r.lease
            AND w.id = d.webhook_id
         RETURNING d.webhook_id, r.next_status = 'succeeded' AS ok, r.attempted_at, r.gone,
                   r.next_status = 'released' AS released
       ), health AS (
         -- per webhook: did an attempt of this batch succeed, when did the first one fail, and
         -- does that pause it (read from this statement's snapshot; the UPDATE re-checks status)
         SELECT m.webhook_id, bool_or(m.ok) AS ok, count(*) FILTER (WHERE NOT m.ok)::int AS failures,
                min(m.attempted_at) FILTER (WHERE NOT m.ok) AS first_failure,
                CASE WHEN bool_or(m.gone) THEN 'gone'
                     WHEN NOT bool_or(m.ok)
                          AND COALESCE(min(w.failing_since), min(m.attempted_at))
                              <= now() - ${disableAfterMs} * interval '1 millisecond'
                       THEN 'failing' END AS pause
           FROM moved m JOIN webhooks w ON w.id = m.webhook_id
          WHERE NOT m.released
          GROUP BY m.webhook_id
       )
       UPDATE webhooks w
          SET consecutive_failures = CASE WHEN h.ok THEN 0
                                          ELSE w.consecutive_failures + h.failures END,
              failing_since = CASE WHEN h.ok THEN NULL
                                   ELSE COALESCE(w.failing_since, h.first_failure) END,
              status = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN 'paused'
                            ELSE w.status END,
              status_reason = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN h.pause
                                   ELSE w.status_reason END,
              updated_at = CASE WHEN w.status = 'active' AND h.pause IS NOT NULL THEN now()
                                ELSE w.updated_at END
         FROM health h
        WHERE w.id = h.webhook_id
          AND (h.pause IS NOT NULL OR NOT h.ok
               OR w.consecutive_failures <> 0 OR w.failing_since IS NOT NULL)
       RETURNING w.id, w.tenant_id,
                 -- set to now() (this transaction's start) only by the pause above
                 CASE WHEN w.updated_at = now() THEN h.pause END AS status_reason`;

/** The delivery worker's result write (see `writeResults`). */
@Injectable()
export class DeliveryResultsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Records every attempt, moves each delivery to its next state and keeps each endpoint's health
   * in one statement. A chain's row handed back unsent (`released`) is due again, with no attempt
   * recorded and no effect on health. A delivery is only moved while it still carries the lease this worker
   * claimed it with; if the webhook was revoked meanwhile, an unsuccessful delivery is cancelled
   * instead of retried. A success clears the endpoint's failure record; a failure counts against
   * it (fewer slots in the next claims) and, once the first failure since the last success is
   * `disableAfterMs` old, pauses the webhook as `failing`. A 410 pauses it as `gone`. Answers the
   * webhooks whose health it wrote.
   */
  async writeResults(
    batch: readonly AttemptOutcome[],
    disableAfterMs: number,
  ): Promise<PausedRow[]> {
    const statement = writeResultsStatement(batch, disableAfterMs);
    return updatedRows<PausedRow>(await this.dataSource.query(statement.text, statement.values));
  }
}
