import type { Logger } from '@nestjs/common';
import pg from 'pg';

export interface ListenConnectionOptions {
  connectionString: string | undefined;
  channel: string;
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

  constructor(private readonly options: ListenConnectionOptions) {}

  get listening(): boolean {
    return this.client !== null;
  }

  /** Resolves once the first attempt to listen has succeeded or failed (it retries either way). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
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
