import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { fragment, sql, type Statement } from '../../../common/database/statement.js';
import { updatedRows } from './sql-rows.js';

/**
 * The delivery worker's statements on its claims: claiming, the webhook version a chain checks,
 * and handing back leases. Each runs on its own (autocommit) through the data source, never in a
 * tenant transaction: the worker works across tenants. Their text is performance-tuned and built
 * by the `sql` tag from constant pieces, so each is the same text every time; a value used twice
 * is bound twice (the unnamed statements are planned with the values bound, so alike). Each
 * names `d.pending`, the predicate of the index they read (`webhook_deliveries_pending`): the
 * planner cannot infer it from the status.
 */

/** A delivery claimed for sending, with what sending it needs. */
export interface ClaimedRow {
  id: string;
  tenant_id: number;
  webhook_id: number;
  /** The chain this row belongs to, within its webhook's rows of this claim. */
  chain: number;
  /** Its place in the webhook's rows of this claim (a chain's rows are sent in this order). */
  turn: string;
  attempts: number;
  /** Seconds from the event to this claim, on a first attempt; null on a retry. */
  first_attempt_wait: number | null;
  /** The exact lease value written by the claim; the result write is guarded by it. */
  lease: string;
  event_id: string;
  body: string;
  endpoint_url: string;
  secret_sealed: Buffer;
  /** The secret a rotation replaced, while its grace period lasts (signs too); else null. */
  previous_secret_sealed: Buffer | null;
  /** The webhook's `updated_at` when claimed: a status, URL or secret change moves it. */
  webhook_version: string;
  /** The event's publishing trace context (`traceparent`), null without tracing. */
  trace_parent: string | null;
}

/** What one claim may take (see `DeliveryClaimsRepository.claim`). */
export interface ClaimLimits {
  /** Send chains at most. */
  chains: number;
  leaseSeconds: number;
  /** `WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT`. */
  perEndpoint: number;
  /** Of this process's sends, what one tenant may hold. */
  perTenant: number;
  /** This process's sends in flight, by tenant (only tenants with some). */
  busy: ReadonlyArray<readonly [tenantId: number, inFlight: number]>;
  /** Due rows one slot of a healthy webhook may carry. */
  chainLength: number;
}

/** What a claimed row carries besides its place in its chain (d: the delivery, w, e). */
const CLAIMED_COLUMNS = fragment(`d.attempts,
                 CASE WHEN d.attempts = 0
                      THEN extract(epoch FROM clock_timestamp() - e.created_at)::float8
                 END AS first_attempt_wait,
                 d.lease_expires_at::text AS lease,
                 e.event_id, e.payload::text AS body, w.endpoint_url, w.secret_sealed,
                 CASE WHEN w.previous_secret_expires_at > clock_timestamp()
                      THEN w.previous_secret_sealed END AS previous_secret_sealed,
                 w.updated_at::text AS webhook_version, e.trace_parent`);

/** Rows of a worker that died holding them (lease run out) are handed back. */
const RELEASE_EXPIRED = sql`UPDATE webhook_deliveries d
          SET status = CASE WHEN w.status = 'revoked' THEN 'cancelled'
                            WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END,
              lease_expires_at = NULL, holds_slot = true, updated_at = now()
         FROM webhooks w
        WHERE d.pending AND d.status = 'sending' AND d.lease_expires_at < now()
          AND w.id = d.webhook_id`;

const claimStatement = (limits: ClaimLimits): Statement<ClaimedRow> => sql`WITH hooks AS (
         SELECT w.id, w.tenant_id,
                GREATEST(1, ${limits.perEndpoint}::int >> LEAST(w.consecutive_failures, 30)) - w.in_flight AS free,
                CASE WHEN w.consecutive_failures = 0 THEN ${limits.chainLength}::int ELSE 1 END AS per_slot
           FROM webhooks w
          WHERE w.status = 'active'
            AND EXISTS (SELECT 1 FROM webhook_deliveries d
                         WHERE d.webhook_id = w.id AND d.pending AND d.status IN ('queued', 'retry')
                           AND d.next_attempt_at <= now())
          FOR NO KEY UPDATE OF w SKIP LOCKED
       ), due AS (
         SELECT d.id, h.id AS webhook_id, h.tenant_id, d.next_attempt_at AS due_at, h.free
           FROM hooks h
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.webhook_id = h.id AND d.pending AND d.status IN ('queued', 'retry')
                AND d.next_attempt_at <= now()
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(LEAST(h.free, ${limits.chains}), 0) * h.per_slot
              FOR UPDATE OF d SKIP LOCKED) d
       ), numbered AS (
         SELECT d.id, d.webhook_id, d.tenant_id, d.due_at,
                row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.due_at, d.id) AS turn,
                count(*) OVER (PARTITION BY d.webhook_id) AS n,
                LEAST(d.free, count(*) OVER (PARTITION BY d.webhook_id)) AS chains
           FROM due d
       ), chained AS (
         SELECT n.id, n.webhook_id, n.tenant_id, n.due_at, n.turn,
                ((n.turn - 1) % n.chains)::int AS chain,
                n.turn > n.n - n.chains AS holds_slot
           FROM numbered n
       ), by_tenant AS (
         -- a chain's first row stands for it
         SELECT c.webhook_id, c.chain, c.due_at,
                row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.chain, c.due_at, c.id)
                  AS turn,
                ${limits.perTenant}::int - COALESCE(t.in_flight, 0) AS share
           FROM chained c
           LEFT JOIN unnest(${limits.busy.map(([tenantId]) => tenantId)}::int[], ${limits.busy.map(([, n]) => n)}::int[]) AS t(tenant_id, in_flight)
             ON t.tenant_id = c.tenant_id
          WHERE c.turn = c.chain + 1
       ), picked AS (
         SELECT webhook_id, chain FROM by_tenant WHERE turn <= share
          ORDER BY turn, due_at, webhook_id, chain LIMIT ${limits.chains}
       )
       UPDATE webhook_deliveries d
          SET status = 'sending',
              holds_slot = c.holds_slot,
              lease_expires_at = clock_timestamp() + make_interval(secs => ${limits.leaseSeconds}),
              updated_at = now()
         FROM chained c, picked p, webhooks w, events e
        WHERE d.id = c.id AND p.webhook_id = c.webhook_id AND p.chain = c.chain
          AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.tenant_id, d.webhook_id, c.chain, c.turn::text AS turn, ${CLAIMED_COLUMNS}`;

/**
 * Up to `limit` due rows of `tail`'s webhook for its chain. Only while the webhook is active, unchanged and healthy; its last row holds the
 * slot, which the chain's previous last row holds too until its result is written.
 */
const extendStatement = (
  tail: ClaimedRow,
  limit: number,
  leaseSeconds: number,
): Statement<ClaimedRow> => sql`WITH due AS (
         SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.webhook_id = ${tail.webhook_id} AND d.pending AND d.status IN ('queued', 'retry')
            AND d.next_attempt_at <= now()
            AND EXISTS (SELECT 1 FROM webhooks w
                         WHERE w.id = ${tail.webhook_id} AND w.status = 'active' AND w.consecutive_failures = 0
                           AND w.updated_at::text = ${tail.webhook_version})
          ORDER BY d.next_attempt_at
          LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
       ), numbered AS (
         SELECT id, row_number() OVER (ORDER BY next_attempt_at, id) AS turn,
                count(*) OVER () AS n
           FROM due
       )
       UPDATE webhook_deliveries d
          SET status = 'sending',
              holds_slot = n.turn = n.n,
              lease_expires_at = clock_timestamp() + make_interval(secs => ${leaseSeconds}),
              updated_at = now()
         FROM numbered n, webhooks w, events e
        WHERE d.id = n.id AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.tenant_id, d.webhook_id, ${tail.chain}::int AS chain, n.turn::text AS turn,
                 ${CLAIMED_COLUMNS}`;

const webhookVersionStatement = (webhookId: number): Statement<{ v: string }> =>
  sql`SELECT updated_at::text AS v FROM webhooks WHERE id = ${webhookId} AND status = 'active'`;

const releaseLeasesStatement = (
  leases: ReadonlyArray<readonly [id: string, lease: string]>,
): Statement => sql`UPDATE webhook_deliveries d
            SET status = CASE WHEN d.attempts > 0 THEN 'retry' ELSE 'queued' END,
                lease_expires_at = NULL, next_attempt_at = now(), updated_at = now()
           FROM unnest(${leases.map(([id]) => id)}::bigint[], ${leases.map(([, lease]) => lease)}::timestamptz[]) AS r(id, lease)
          WHERE d.id = r.id AND d.status = 'sending' AND d.lease_expires_at = r.lease`;

@Injectable()
export class DeliveryClaimsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Hands back the rows whose lease ran out: due again at their old due time (cancelled if their
   * webhook was revoked meanwhile).
   */
  async releaseExpiredLeases(): Promise<void> {
    await this.run(RELEASE_EXPIRED);
  }

  /**
   * Claims due deliveries for up to `limits.chains` send chains in one statement.
   *
   * It locks the active webhooks that have due rows, skipping those another worker is claiming
   * for or recording results of right now. A locked row is read in its newest committed version,
   * so `in_flight` (kept by triggers, see the migrations webhook-endpoint-health and
   * webhook-send-chains) already counts every chain another replica committed: the free slots are
   * the endpoint's limit, halved per failure since its last success (down to one), minus that.
   * A webhook's oldest due rows fill its free slots; a healthy webhook's slot may carry up to
   * `chainLength` rows (a failing one's only one), dealt round-robin so each chain starts with
   * one of the oldest. The chains are ranked round-robin, first across a tenant's webhooks, then
   * across tenants, kept within each tenant's share of this process, and the first `chains` are
   * claimed. Each chain's last row holds its slot until its result is written. Rows are locked
   * `FOR UPDATE SKIP LOCKED` as before (a replay holding one is skipped).
   */
  async claim(limits: ClaimLimits): Promise<ClaimedRow[]> {
    return this.run(claimStatement(limits));
  }

  /**
   * Lengthens a send chain of `tail`'s webhook by up to `limit` of its due rows, in sending order,
   * handing the chain's slot on to the new last row; none once the webhook was paused, revoked,
   * edited, rotated or failed since `tail` was claimed. The slot is counted twice until the
   * chain's previous last row is written, which only makes other claims take fewer.
   */
  async extend(tail: ClaimedRow, limit: number, leaseSeconds: number): Promise<ClaimedRow[]> {
    return this.run(extendStatement(tail, limit, leaseSeconds));
  }

  /** The webhook's `updated_at` as text while it is active; null when it is not (or unknown). */
  async activeWebhookVersion(webhookId: number): Promise<string | null> {
    const [found] = await this.run(webhookVersionStatement(webhookId));
    return found?.v ?? null;
  }

  /** Hands back rows still carrying these leases (id, lease): due again now. */
  async releaseLeases(leases: ReadonlyArray<readonly [id: string, lease: string]>): Promise<void> {
    await this.run(releaseLeasesStatement(leases));
  }

  /** Rows of the statement, on its own on the pool (an UPDATE's RETURNING rows too). */
  private async run<R>(statement: Statement<R>): Promise<R[]> {
    return updatedRows<R>(await this.dataSource.query(statement.text, statement.values));
  }
}
