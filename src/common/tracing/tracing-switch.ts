/**
 * Whether the standard OpenTelemetry variables ask for traces. Pure and import-free: main.ts asks
 * it before loading anything, so a service without them never loads the SDK.
 *
 * On when OTEL_TRACES_EXPORTER names an exporter (not `none`), or when it is unset and an OTLP
 * endpoint is given (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); always
 * off with OTEL_SDK_DISABLED=true.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (exporters.length > 0) return !exporters.every((e) => e === 'none');
  return Boolean(
    env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim(),
  );
}
