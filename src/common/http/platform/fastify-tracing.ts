import { FastifyOtelInstrumentation } from '@fastify/otel';

/**
 * The Fastify project's instrumentation, registered on every Fastify instance as it is created (a
 * diagnostics channel), Nest's included. Loaded by start-tracing.ts only when tracing is on.
 */
export function fastifyInstrumentation(): FastifyOtelInstrumentation {
  return new FastifyOtelInstrumentation({ registerOnInitialization: true });
}
