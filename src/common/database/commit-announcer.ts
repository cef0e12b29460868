import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { outsideRequests } from '../logging/background.js';
import { sql } from './statement.js';

type Listener = () => void;

/**
 * Wake-ups for what a transaction committed (an event appended, deliveries queued), sent AFTER its
 * COMMIT, never from inside it. PostgreSQL serializes the commits of every transaction that ran
 * NOTIFY, in the whole cluster, on one lock held through the commit's WAL flush: with a NOTIFY in
 * each write, writes committed one at a time (bench/README.md, "Wake-ups after the commit").
 *
 * This process's own listeners are called at once; other processes hear of it through one
 * `pg_notify` statement at a time (autocommit: no transaction id, no WAL flush, so the lock is held
 * for microseconds), carrying every channel announced while the previous one was in flight.
 * A wake-up is a hint: each listener also polls (1 s), so one lost with a crash between the commit
 * and its announcement, or with a failed `pg_notify`, costs latency, never an event.
 */
@Injectable()
export class CommitAnnouncer {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pending = new Set<string>();
  private sending = false;
  private readonly logger = new Logger('CommitAnnouncer');

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Calls `listener` when a transaction of this process announces `channel`; returns its removal. */
  subscribe(channel: string, listener: Listener): () => void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  /**
   * Announces `channels` (of a committed transaction, or of an autocommit statement). Outside the
   * request's asynchronous context: a listener's work and the statement are not the request's.
   */
  announce(channels: Iterable<string>): void {
    const fresh = [...channels];
    if (fresh.length === 0) return;
    outsideRequests(() => {
      for (const channel of fresh) {
        this.pending.add(channel);
        for (const listener of this.listeners.get(channel) ?? []) this.call(listener, channel);
      }
      if (!this.sending) void this.send();
    });
  }

  /** A listener that throws is logged: the transaction it follows has committed all the same. */
  private call(listener: Listener, channel: string): void {
    try {
      listener();
    } catch (err) {
      this.logger.error(`a ${channel} listener failed: ${(err as Error).message}`);
    }
  }

  /** Resolves once nothing is pending or in flight (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.sending || this.pending.size > 0) await new Promise((r) => setImmediate(r));
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.pending.size > 0) {
        const channels = [...this.pending];
        this.pending.clear();
        const notify = sql`SELECT pg_notify(c, '') FROM unnest(${channels}::text[]) AS c`;
        try {
          await this.dataSource.query(notify.text, notify.values);
        } catch (err) {
          // the listeners' polls carry on; a closing pool is not worth a warning
          if (this.dataSource.isInitialized) {
            this.logger.warn(`wake-up not sent (${(err as Error).message}); polls carry on`);
          }
        }
      }
    } finally {
      this.sending = false;
    }
  }
}
