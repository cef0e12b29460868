// The service's entry point. Tracing, when the OTEL_* variables ask for it, starts before the
// application is loaded (its instrumentations patch modules as they are first required); without
// them the SDK is never loaded.
import { tracingRequested } from './common/tracing/tracing-switch.js';

if (tracingRequested(process.env)) {
  const { startTracing } = await import('./common/tracing/start-tracing.js');
  startTracing();
}
await import('./serve.js');
