import type { Logger } from '@nestjs/common';
import type { DeliveryResultsRepository } from '../repository/delivery-results.repository.js';
import type { AttemptOutcome } from './attempt-outcome.js';

/** Results written per statement. */
const RESULT_BATCH = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The delivery worker's results, written in batches by one writer at a time: results arriving
 * while a batch is written go together into the next one.
 */
export class ResultRecorder {
  private pending: AttemptOutcome[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly results: Pick<DeliveryResultsRepository, 'writeResults'>,
    private readonly logger: Logger,
    private readonly settings: {
      disableAfterMs: number;
      /** `WEBHOOK_DISABLE_AFTER` as configured, for the log. */
      disableAfter: string;
      /** Called after each batch, written or given up on: its rows' leases are done with. */
      recorded: (batch: readonly AttemptOutcome[]) => void;
      /** Wait before the second try of a failed write, doubled before the third (200 ms). */
      retryBackoffMs?: number;
    },
  ) {}

  /** Queues `outcomes` and makes sure a writer runs. */
  record(...outcomes: AttemptOutcome[]): void {
    this.pending.push(...outcomes);
    this.requestFlush();
  }

  /** Waits until everything queued is written (or given up on). */
  async drain(): Promise<void> {
    while (this.flushing || this.pending.length > 0) {
      this.requestFlush();
      await this.flushing;
    }
  }

  /** One writer at a time; results arriving meanwhile are written together in the next round. */
  private requestFlush(): void {
    if (this.flushing) return;
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null;
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, RESULT_BATCH);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.write(batch);
          break;
        } catch (error) {
          if (attempt >= 3) {
            // The rows stay `sending`; their lease expires and they are attempted again.
            this.logger.error(
              `recording ${batch.length} webhook attempts failed: ${(error as Error).message}`,
            );
            break;
          }
          await sleep((this.settings.retryBackoffMs ?? 200) * attempt);
        }
      }
      this.settings.recorded(batch);
    }
  }

  /** Writes one batch (see `DeliveryResultsRepository.writeResults`) and logs the pauses. */
  private async write(batch: AttemptOutcome[]): Promise<void> {
    const paused = await this.results.writeResults(batch, this.settings.disableAfterMs);
    for (const row of paused) {
      if (row.status_reason === null) continue;
      // an operational event: the tenant's integration stopped receiving until re-activated
      this.logger.warn(
        `webhook ${row.id} of tenant ${row.tenant_id} paused: ${
          row.status_reason === 'gone'
            ? 'its receiver answered 410 Gone'
            : `its deliveries failed without a success for ${this.settings.disableAfter}`
        }`,
      );
    }
  }
}
