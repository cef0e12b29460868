import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from './support/otlp-receiver.js';
import { createRevisionFixture, stage } from './support/revision-factories.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import {
  createWebhook,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhook-factories.js';

const SERVER = 2;

/** The JSON log lines of a service's output. */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The trace context of the staged event's row (what its deliveries continue). */
async function storedTraceParent(t: TestApp, revisionId: number): Promise<string | null> {
  const [row] = await t.app.get(DataSource).query<Array<{ trace_parent: string | null }>>(
    `SELECT trace_parent FROM events
      WHERE type = 'external_revision.staged' AND (payload->'data'->>'revisionId')::int = $1`,
    [revisionId],
  );
  if (!row) throw new Error(`no staged event for revision ${revisionId}`);
  return row.trace_parent;
}

/**
 * Tracing in a service process (`node dist/src/main.js`) started by the standard OTEL_* variables,
 * exporting OTLP/HTTP JSON to a receiver in this process; and the same service without them.
 */
describe('OpenTelemetry tracing', () => {
  const secretKey = randomBytes(32).toString('base64');
  let database: TestDatabase;
  let t: TestApp;
  let otlp: OtlpReceiver;
  let receiver: Receiver;
  const services: ServiceProcess[] = [];

  const serviceEnv = (extra: Record<string, string>): Record<string, string> => ({
    ...database.env,
    WEBHOOK_SECRET_KEY: secretKey,
    WORKERS_ENABLED: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_API_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...extra,
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    // the in-process app (workers off) only seeds, as the host platform would
    t = await startTestApp({ WEBHOOK_SECRET_KEY: secretKey }, database);
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await t?.close();
    await otlp?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('continues an incoming traceparent: the HTTP span, its SQL, the log lines and, later, the delivery attempt linked to it', async () => {
    const service = await startService(
      serviceEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
    );
    services.push(service);
    const f = await createRevisionFixture(t.app, { plan: 'enterprise' });
    // a path that carries the receiver's own secret, as many webhook URLs do
    await createWebhook(t.baseUrl, f.caller.auth, receiver.url('/traced/hook-s3cr3t'));

    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await stage(
      service.baseUrl,
      f.caller.auth,
      f.documentId,
      { content: { clause: 'A.8.1' } },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(res.status).toBe(201);
    const revisionId = res.body.revisionId as number;

    // the receiver gets a traceparent of the same trace (the attempt's HTTP client span)
    const delivery = await waitFor(
      () => receiver.on('/traced/hook-s3cr3t')[0],
      20_000,
      'the delivery',
    );
    expect(delivery.headers['traceparent']).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const inTrace = (): ReceivedSpan[] => otlp.spans.filter((s) => s.traceId === traceId);
    const attempt = await waitFor(
      () => inTrace().find((s) => s.name === 'webhook delivery attempt'),
      20_000,
      'the delivery attempt span',
    );
    const server = inTrace().find((s) => s.kind === SERVER);
    expect(server).toBeDefined();
    // the caller's span is the HTTP span's parent: the platform's trace continues here
    expect(server!.parentSpanId).toBe(callerSpanId);
    expect(server!.service).toBe('grc-integration-api');
    // the staging's statements are in its trace
    const statements = inTrace().filter(
      (s) =>
        s.attributes['db.system.name'] === 'postgresql' ||
        s.attributes['db.system'] === 'postgresql',
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(JSON.stringify(statements.map((s) => s.attributes))).toMatch(/INSERT INTO events/);

    // the event keeps the context it was published in, a span of this request's trace
    const published = await storedTraceParent(t, revisionId);
    expect(published).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const publishedSpanId = published!.split('-')[2]!;
    expect(inTrace().map((s) => s.spanId)).toContain(publishedSpanId);

    // the attempt: a child of that context and linked to it, with its outcome
    expect(attempt.parentSpanId).toBe(publishedSpanId);
    expect(attempt.links).toEqual([{ traceId, spanId: publishedSpanId }]);
    expect(attempt.attributes['webhook.outcome']).toBe('succeeded');
    expect(attempt.attributes['http.response.status_code']).toBe(200);
    // the request to the receiver is the attempt's child, and the traceparent it sent is its
    const client = inTrace().find((s) => s.parentSpanId === attempt.spanId);
    expect(client).toBeDefined();
    expect(delivery.headers['traceparent']).toBe(`00-${traceId}-${client!.spanId}-01`);
    // the endpoint's path (its secret) stays out of every span: the origin names the receiver
    expect(JSON.stringify(otlp.spans)).not.toContain('s3cr3t');
    expect(client!.attributes['url.full']).toBe(`${new URL(receiver.url('/')).origin}/`);

    // every log line of the request carries the trace: its completion line included
    const requestLines = logLines(service.output()).filter(
      (l) =>
        (l['req'] as { path?: string } | undefined)?.path ===
        `/api/v1/documents/${f.documentId}/external-revisions`,
    );
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) {
      expect(line['trace_id']).toBe(traceId);
      expect(line['span_id']).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(otlp.rejected).toEqual([]);
  });

  it('without OTEL_* variables: no trace ids in the logs, no trace context stored, nothing exported', async () => {
    const exportedBefore = otlp.spans.length;
    const service = await startService(serviceEnv({}));
    services.push(service);
    const f = await createRevisionFixture(t.app);
    const traceId = randomBytes(16).toString('hex');
    const res = await stage(
      service.baseUrl,
      f.caller.auth,
      f.documentId,
      { content: { clause: 'A.8.2' } },
      { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    );
    expect(res.status).toBe(201);
    expect(await storedTraceParent(t, res.body.revisionId as number)).toBeNull();
    const lines = logLines(service.output());
    expect(lines.some((l) => l['req'] !== undefined)).toBe(true);
    expect(lines.filter((l) => 'trace_id' in l)).toEqual([]);
    expect(otlp.spans.length).toBe(exportedBefore);
  });
});
