import type { Logger } from '@nestjs/common';
import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { outsideRequests } from '../logging/background.js';
import type { CommitAnnouncer } from './commit-announcer.js';

/**
 * Where LISTEN connects, or undefined when this process cannot listen. A notification reaches only
 * the server session that asked for it, which a transaction pooler does not keep: behind one,
 * LISTEN needs DATABASE_LISTEN_URL (PostgreSQL itself or a session pool).
 */
export function listenUrl(config: AppConfig): string | undefined {
  if (config.DATABASE_LISTEN_URL) return config.DATABASE_LISTEN_URL;
  return config.DATABASE_POOL_MODE === 'session' ? config.DATABASE_URL : undefined;
}

/** What start-up says when this process cannot listen (see `listenUrl`). */
export const NO_LISTEN_NOTICE =
  'DATABASE_POOL_MODE=transaction without DATABASE_LISTEN_URL: webhook wake-ups fall back to ' +
  'polling (about 1 s) and the credential cache is off (every request looks its credential up)';

export interface ListenConnectionOptions {
  /** Undefined: this process cannot listen (`listenUrl`); only `announcer`'s wake-ups come. */
  connectionString: string | undefined;
  channel: string;
  /** This process's own announcements of `channel`, heard at once without the round trip. */
  announcer?: Pick<CommitAnnouncer, 'subscribe'>;
  /** Shown in `pg_stat_activity`. */
  applicationName: string;
  logger: Logger;
  reconnectMs: number;
  onNotification(): void;
  /** Listening (again): anything committed while not listening was not announced. */
  onListening(): void;
  /** Not listening any more: notifications may be missed until `onListening` comes again. */
  onLost(): void;
}

/**
 * A dedicated connection that `LISTEN`s on one channel and comes back by itself after a failure.
 * Pooled connections cannot listen: a notification reaches only the session that asked for it.
 */
export class ListenConnection {
  private client: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private running = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: ListenConnectionOptions) {}

  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * Resolves once the first attempt to listen has succeeded or failed (it retries either way).
   * The connection, its events and its reconnect timers live outside the async context of the
   * caller (the credential cache starts listening on a request's first use): their log lines
   * belong to no request.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const { options } = this;
    this.unsubscribe =
      options.announcer?.subscribe(options.channel, () => options.onNotification()) ?? null;
    if (this.options.connectionString === undefined) return;
    await outsideRequests(() => this.connect());
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    if (client) this.options.onLost();
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { options } = this;
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      options.onLost();
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('notification', () => options.onNotification());
    client.on('error', (error) => {
      options.logger.warn(`${options.channel} listen connection failed: ${error.message}`);
      lost();
    });
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${options.channel}`);
      if (!this.running) {
        await client.end();
        return;
      }
      this.client = client;
      options.onListening();
    } catch (error) {
      options.logger.warn(
        `${options.channel} listen connection failed: ${(error as Error).message}`,
      );
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.running) void this.connect();
    }, this.options.reconnectMs);
  }
}
