import type { ServerResponse } from 'node:http';
import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AppConfig } from '../../../common/config/app-config.js';
import { ListenConnection, listenUrl } from '../../../common/database/listen-connection.js';
import { endWhenServerCloses } from '../../../common/http/graceful-close.js';
import { StreamedResponse } from '../../../common/http/platform/http-platform.js';
import { outsideRequests } from '../../../common/logging/background.js';
import { CommitAnnouncer } from '../../../common/database/commit-announcer.js';
import { EVENTS_APPENDED_CHANNEL } from '../../../common/database/schema-constants.js';
import {
  type FeedBatch,
  type FeedFilter,
  type FeedPosition,
  EventFeedService,
} from './event-feed.service.js';
import { eventFrame, type StreamClient } from './stream-client.js';

export { eventFrame } from './stream-client.js';

/** Events one client reads (and writes to its socket) at a time. */
export const STREAM_BATCH = 100;
/** Distinct reads in flight at once per process (clients at one position share one read). */
const MAX_READS = 4;
/** While committed events wait above the horizon, the feed is read again this soon. */
const PENDING_RETRY_MS = 20;
/** Backs up LISTEN (a lost connection, a transaction pooler without DATABASE_LISTEN_URL). */
const POLL_MS = 1_000;
const LISTEN_RECONNECT_MS = 1_000;

/**
 * The platform API's event stream: every connected Server-Sent Events client of this process, fed
 * from ONE `LISTEN events_appended` connection (a trigger on `events` notifies on commit) instead
 * of one connection or one poll per client.
 *
 * On a notification every idle client reads the feed from its own position, in batches of
 * `STREAM_BATCH`; clients at the same position with the same filter share one read, so 200
 * clients that are caught up cost one query per commit, and at most `MAX_READS` distinct reads
 * run at once. Backpressure: a client whose socket buffer is full (`write` answered false) reads
 * nothing more until it drains, so a slow client holds at most one batch beyond its socket's own
 * buffer; a fast one is not held back by it. A client that disconnects is dropped at once.
 *
 * Events wait for the feed's horizon (EventFeedService); when a read says events are pending, the
 * clients read again after `PENDING_RETRY_MS` even if no notification comes. A 1 s poll backs up
 * LISTEN, which behind a transaction pooler needs DATABASE_LISTEN_URL as the webhook worker does.
 */
@Injectable()
export class EventStreamHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventStreamHub.name);
  private readonly clients = new Set<StreamClient>();
  private readonly shared = new Map<string, Promise<FeedBatch>>();
  private readonly waiting: Array<() => void> = [];
  private reads = 0;
  private listener: ListenConnection | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private running = false;

  /** Feed reads made for the stream since start (one per position and filter, not per client). */
  private readsMade = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly feed: EventFeedService,
    private readonly announcer: CommitAnnouncer,
  ) {}

  /** What the stream is doing (tests, diagnostics). */
  stats(): { clients: number; blocked: number; reads: number } {
    let blocked = 0;
    for (const client of this.clients) if (client.state === 'blocked') blocked += 1;
    return { clients: this.clients.size, blocked, reads: this.readsMade };
  }

  onApplicationBootstrap(): void {
    this.running = true;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    for (const client of [...this.clients]) this.end(client);
    this.clients.clear();
    this.stopTimers();
    await this.listener?.stop();
    this.listener = null;
  }

  /**
   * Streams the feed to `res` (whose head is not written yet) after `position` (null: from the
   * first event, i.e. from (0, 0), before every event). The first frame is an `id:` line alone,
   * which sets the client's Last-Event-ID without an event, so a reconnect resumes where this
   * stream started even before any event.
   */
  attach(res: ServerResponse, position: FeedPosition | null, filter: FeedFilter): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      // nginx and the like buffer responses unless told not to
      'X-Accel-Buffering': 'no',
    });
    if (!this.running || res.destroyed) {
      res.end();
      return;
    }
    const start = position ?? { xid: 0, id: 0 };
    const client: StreamClient = {
      res,
      filter,
      filterKey: `${filter.tenantId ?? ''}|${filter.types?.join(',') ?? '*'}`,
      position: start,
      state: 'idle',
      again: false,
    };
    // the client stops being served the moment it goes
    res.once('close', () => this.drop(client));
    // a write that fails (the peer gone mid-write) is the end of this client, never an
    // unhandled 'error' that would end the process
    res.on('error', () => this.drop(client));
    // a shutdown ends the stream (the client reconnects elsewhere with its Last-Event-ID); it is
    // dropped first, so no poll or heartbeat writes to the ended response while it flushes
    endWhenServerCloses(res, () => this.end(client));
    res.socket?.setNoDelay(true);
    res.write(`id: ${this.feed.encodeCursor(start)}\n\n`);
    this.clients.add(client);
    // reads, timers and the LISTEN connection serve every client: none belongs to this request
    outsideRequests(() => {
      void this.startListening();
      this.startTimers();
      this.serve(client);
    });
  }

  /**
   * The stream a request asked for, checked before anything is written (a bad cursor or an
   * unknown tenant is an error response, not a stream): after `Last-Event-ID` (what a reconnecting
   * EventSource sends), else after `after`, else from the current end (only what comes next).
   */
  async stream(
    after: string | undefined,
    lastEventId: string | undefined,
    filter: FeedFilter,
  ): Promise<StreamedResponse> {
    // an empty Last-Event-ID is what an EventSource holds before any id: none
    const position =
      lastEventId !== undefined && lastEventId !== ''
        ? this.feed.decodeCursor(lastEventId, 'Last-Event-ID')
        : this.feed.decodeCursor(after, 'after');
    await this.feed.checkFilter(filter);
    const start = position ?? (await this.feed.head());
    const attach = (res: ServerResponse) => this.attach(res, start, filter);
    return new (class extends StreamedResponse {
      start(res: ServerResponse): void {
        attach(res);
      }
    })();
  }

  /** Every idle client looks for events after its position. */
  wake(): void {
    for (const client of this.clients) this.serve(client);
  }

  private serve(client: StreamClient): void {
    if (client.state === 'closed') return;
    if (client.state !== 'idle') {
      client.again = true;
      return;
    }
    client.state = 'reading';
    client.again = false;
    void this.readFor(client);
  }

  private async readFor(client: StreamClient): Promise<void> {
    let batch: FeedBatch;
    try {
      batch = await this.sharedRead(client);
    } catch (error) {
      this.logger.warn(`event stream read failed: ${(error as Error).message}`);
      if (client.state === 'reading') client.state = 'idle';
      // the poll tries again
      return;
    }
    if (client.state === 'closed' || client.res.writableEnded) return;
    let ok = true;
    if (batch.events.length > 0) {
      let text = '';
      for (const e of batch.events) text += eventFrame(e.cursor, e.type, e.envelope);
      ok = client.res.write(text);
    }
    if (batch.next) client.position = batch.next;
    if (batch.pending) this.retrySoon();
    if (!ok) {
      client.state = 'blocked';
      client.res.once('drain', () => {
        if (client.state !== 'blocked') return;
        client.state = 'idle';
        this.serve(client);
      });
      return;
    }
    client.state = 'idle';
    if (batch.full || client.again) this.serve(client);
  }

  /** One read per (position, filter) at a time, however many clients stand there. */
  private sharedRead(client: StreamClient): Promise<FeedBatch> {
    const at = client.position;
    const key = `${at.xid}:${at.id}|${client.filterKey}`;
    let read = this.shared.get(key);
    if (!read) {
      this.readsMade += 1;
      read = this.limited(() => this.feed.read(at, client.filter, STREAM_BATCH)).finally(() =>
        this.shared.delete(key),
      );
      this.shared.set(key, read);
    }
    return read;
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    while (this.reads >= MAX_READS) await new Promise<void>((go) => this.waiting.push(go));
    this.reads += 1;
    try {
      return await work();
    } finally {
      this.reads -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Ends a client's stream, dropping it first: nothing is written to it afterwards. */
  private end(client: StreamClient): void {
    this.drop(client);
    client.res.end();
  }

  private drop(client: StreamClient): void {
    client.state = 'closed';
    this.clients.delete(client);
    if (this.clients.size === 0) this.stopTimers();
  }

  private retrySoon(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.wake();
    }, PENDING_RETRY_MS);
  }

  private startTimers(): void {
    this.heartbeat ??= setInterval(() => {
      for (const client of this.clients) {
        // a blocked client's buffer is full already: it gets no more bytes, not even these
        if (client.state !== 'blocked' && !client.res.writableEnded) {
          client.res.write(': keep-alive\n\n');
        }
      }
    }, this.config.PLATFORM_SSE_HEARTBEAT_MS);
    this.poll ??= setInterval(() => this.wake(), POLL_MS);
  }

  private stopTimers(): void {
    for (const timer of [this.heartbeat, this.poll]) if (timer) clearInterval(timer);
    if (this.retry) clearTimeout(this.retry);
    this.heartbeat = this.poll = this.retry = null;
  }

  /** One LISTEN connection per process, opened with the first client, kept until shutdown. */
  private async startListening(): Promise<void> {
    if (this.listener) return;
    // this process's commits at once, others' through LISTEN where it can listen
    this.listener = new ListenConnection({
      connectionString: listenUrl(this.config),
      announcer: this.announcer,
      channel: EVENTS_APPENDED_CHANNEL,
      applicationName: 'grc-event-stream',
      logger: this.logger,
      reconnectMs: LISTEN_RECONNECT_MS,
      onNotification: () => this.wake(),
      // whatever committed while not listening is read now
      onListening: () => this.wake(),
      onLost: () => undefined,
    });
    await this.listener.start();
  }
}
