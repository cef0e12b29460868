import { createServer, type Server } from 'node:http';

/**
 * Local webhook endpoint for scenario 5. Answers 200 at once, and records for each event id its
 * first arrival and the delay from the payload's `timestamp` (set when the event was published,
 * inside the committing transaction) to that arrival.
 *
 * With `answerMs` set it answers that long after the body arrived (a receiver doing a little work:
 * 5b's 2 ms), keeping requests in flight at once as a real receiver would.
 *
 * With `{ hang: true }` (the noisy neighbour's receiver, 5c/5d) it reads each request and never
 * answers: the service's `WEBHOOK_TIMEOUT_MS` ends every attempt. It then counts requests
 * (`requests`, and `open` for those still waiting), not event ids.
 */
export class WebhookReceiver {
  private server: Server | undefined;
  /** Every request that arrived, answered or not. */
  requests = 0;
  /** Requests whose connection is still open (hang mode: attempts the service has in flight). */
  open = 0;
  private firstArrival = new Map<string, number>();
  private latencies: number[] = [];
  duplicates = 0;
  firstAt = 0;
  lastAt = 0;
  port = 0;

  /** Milliseconds from a request's body to its answer (0: at once); may change between rows. */
  answerMs = 0;

  constructor(private readonly opts: { hang?: boolean } = {}) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests++;
      if (this.opts.hang) {
        this.open++;
        res.once('close', () => this.open--);
        // read the body, never answer
        req.resume();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = Date.now();
        const answer = () => {
          res.writeHead(200, { 'content-length': '0' });
          res.end();
        };
        if (this.answerMs > 0) setTimeout(answer, this.answerMs);
        else answer();
        this.record(Buffer.concat(chunks).toString('utf8'), req.headers['webhook-id'], now);
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  private record(body: string, webhookId: string | string[] | undefined, now: number): void {
    let payload: { id?: string; timestamp?: string } = {};
    try {
      payload = JSON.parse(body) as typeof payload;
    } catch {
      // counted by id header below
    }
    const id = payload.id ?? (typeof webhookId === 'string' ? webhookId : undefined);
    if (!id) return;
    if (this.firstArrival.has(id)) {
      this.duplicates++;
      return;
    }
    this.firstArrival.set(id, now);
    if (!this.firstAt) this.firstAt = now;
    this.lastAt = now;
    const published = payload.timestamp ? Date.parse(payload.timestamp) : NaN;
    if (Number.isFinite(published)) this.latencies.push(now - published);
  }

  get received(): number {
    return this.firstArrival.size;
  }

  reset(): void {
    this.firstArrival.clear();
    this.latencies = [];
    this.duplicates = 0;
    this.firstAt = 0;
    this.lastAt = 0;
  }

  /** Deliveries per second between the first and the last first-arrival. */
  rate(): number {
    const span = (this.lastAt - this.firstAt) / 1000;
    return span > 0 ? (this.received - 1) / span : 0;
  }

  percentile(p: number): number {
    if (!this.latencies.length) return NaN;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server!.close(() => ok()));
  }
}
