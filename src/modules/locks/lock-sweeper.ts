import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AppConfig } from '../../common/config/app-config.js';
import { LocksService } from './locks.service.js';

export const LOCK_SWEEP_INTERVAL = 'document-lock-sweep';
const SWEEP_INTERVAL_MS = 5_000;

/**
 * Releases expired locks on a timer when this process runs workers. Every replica may run it:
 * the sweep claims rows with SKIP LOCKED, so they share the work instead of repeating it.
 * A declared interval with a guard (not one registered at start) keeps this provider free of
 * SchedulerRegistry, so the CLI, which has no scheduler, can load the locks module.
 */
@Injectable()
export class LockSweeper {
  private readonly logger = new Logger(LockSweeper.name);
  private running = false;

  constructor(
    private readonly config: AppConfig,
    private readonly locks: LocksService,
  ) {}

  @Interval(LOCK_SWEEP_INTERVAL, SWEEP_INTERVAL_MS)
  async tick(): Promise<void> {
    // a slow pass must not overlap the next one in this process
    if (!this.config.WORKERS_ENABLED || this.running) return;
    this.running = true;
    try {
      const released = await this.locks.sweepExpired();
      if (released > 0) this.logger.log({ released }, 'released expired document locks');
    } catch (error) {
      this.logger.error({ err: error }, 'document lock sweep failed');
    } finally {
      this.running = false;
    }
  }
}
