import {
  type Context,
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { TraceHooks } from './trace-hooks.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as a W3C `traceparent` (version 00), whatever propagator the service uses. */
function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A stored `traceparent` as a remote span context; undefined when absent or malformed. */
export function parseTraceparent(value: string | null): SpanContext | undefined {
  const m = value ? TRACEPARENT.exec(value) : null;
  if (!m) return undefined;
  const sc: SpanContext = {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: parseInt(m[3]!, 16),
    isRemote: true,
  };
  return isSpanContextValid(sc) ? sc : undefined;
}

/** The hooks of trace-hooks.ts on the OpenTelemetry API (whose provider the SDK registered). */
export function otelHooks(tracer: Tracer, shutdown: () => Promise<void>): TraceHooks {
  const activeContext = (): SpanContext | undefined => {
    const sc = trace.getSpan(context.active())?.spanContext();
    return sc && isSpanContextValid(sc) ? sc : undefined;
  };
  return {
    traceparent() {
      const sc = activeContext();
      return sc ? formatTraceparent(sc) : null;
    },
    logFields(): Record<string, string> {
      const sc = activeContext();
      return sc ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
    },
    async inLinkedSpan(name, parent, attributes, fn, outcome) {
      const origin = parseTraceparent(parent);
      const parentContext: Context = origin
        ? trace.setSpanContext(ROOT_CONTEXT, origin)
        : ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.PRODUCER,
          attributes,
          links: origin ? [{ context: origin, attributes: { 'link.kind': 'published_by' } }] : [],
        },
        parentContext,
      );
      try {
        const result = await context.with(trace.setSpan(parentContext, span), fn);
        const { attributes: after, failed, message } = outcome(result);
        span.setAttributes(after);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message });
        return result;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
        throw err;
      } finally {
        span.end();
      }
    },
    shutdown,
  };
}
