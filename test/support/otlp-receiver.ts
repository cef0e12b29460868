import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/HTTP's JSON encoding carries it (ids as hex), with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  scope: string;
  service: unknown;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

function flatten(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes) {
    out[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  }
  return out;
}

/** An OTLP/HTTP trace receiver (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on 127.0.0.1. */
export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends `/v1/traces`). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests that were not a decodable JSON trace export. */
  rejected: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.url !== '/v1/traces' || !req.headers['content-type']?.includes('json')) {
        rejected.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(text) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const resource = flatten(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: flatten(s.attributes),
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              scope: ss.scope?.name ?? '',
              service: resource['service.name'],
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    rejected,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
