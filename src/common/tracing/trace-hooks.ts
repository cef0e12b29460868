/**
 * What the service asks of tracing, without importing OpenTelemetry: the hooks are installed by
 * start-tracing.ts (loaded only when tracing is on), and every caller does nothing when they are
 * absent, so a service without tracing pays one property read per call site.
 */

/** Attributes an attempt's span gets once it ended, and whether it failed. */
export interface SpanOutcome {
  attributes: Record<string, string | number | boolean>;
  failed: boolean;
  /** A short reason for a failure (never a secret or a response body). */
  message?: string;
}

export interface TraceHooks {
  /** The active span's context as a W3C `traceparent`; null outside any sampled or unsampled span. */
  traceparent(): string | null;
  /** `trace_id` and `span_id` of the active span, for a log line (pino's `mixin`). */
  logFields(): Record<string, string>;
  /**
   * Runs `fn` in a new span `name`, child of `parent` (a stored `traceparent`, when valid) and
   * linked to it, so the work done later for a traced request shows in the request's trace.
   */
  inLinkedSpan<T>(
    name: string,
    parent: string | null,
    attributes: Record<string, string | number | boolean>,
    fn: () => Promise<T>,
    outcome: (result: T) => SpanOutcome,
  ): Promise<T>;
  /** Exports the spans still buffered (a shutdown). */
  shutdown(): Promise<void>;
}

let installed: TraceHooks | undefined;

/** Called once, by start-tracing.ts, before the application is loaded. */
export function installTraceHooks(hooks: TraceHooks): void {
  installed = hooks;
}

/** The hooks when tracing is on; undefined otherwise. */
export function traceHooks(): TraceHooks | undefined {
  return installed;
}

/** The active span's `traceparent`, or null (always null with tracing off). */
export function currentTraceparent(): string | null {
  return installed ? installed.traceparent() : null;
}
