import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { fastifyInstrumentation } from '../http/platform/fastify-tracing.js';
import { otelHooks } from './otel-hooks.js';
import { installTraceHooks } from './trace-hooks.js';

/** Probes and scrapes: frequent, uninteresting, and they would bury the traces that matter. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

/**
 * Starts the OpenTelemetry Node SDK, configured by the standard OTEL_* variables only (exporter,
 * protocol, endpoint, headers, sampler, resource, propagators). Must run before the application's
 * modules load: the instrumentations patch `pg`, `express`, `@nestjs/core` and `undici` when they
 * are first required, and those are required by CommonJS packages, so main.ts imports the
 * application only after this returned.
 *
 * Traces only: metrics stay on /metrics (Prometheus) and logs on stdout unless
 * OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER ask otherwise (the SDK's default would be OTLP).
 */
export function startTracing(): void {
  process.env['OTEL_METRICS_EXPORTER'] ??= 'none';
  process.env['OTEL_LOGS_EXPORTER'] ??= 'none';
  process.env['OTEL_SERVICE_NAME'] ??= 'grc-integration-api';
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
      }),
      new ExpressInstrumentation(),
      fastifyInstrumentation(),
      new NestInstrumentation(),
      // statements of a request or a delivery attempt; not the workers' idle polling
      new PgInstrumentation({ requireParentSpan: true }),
      // a receiver's path and query often carry its own secret (`/services/…/<token>`, `?code=`):
      // spans name the origin only
      new UndiciInstrumentation({
        startSpanHook: (request) => ({
          'url.full': `${request.origin}/`,
          'url.path': '/',
          'url.query': '',
        }),
      }),
    ],
  });
  sdk.start();
  installTraceHooks(otelHooks(trace.getTracer('grc-integration-api'), () => sdk.shutdown()));
}
