import { describe, expect, it } from '@jest/globals';
import { tracingRequested } from './tracing-switch.js';

describe('tracingRequested', () => {
  it('is off without any OTEL_* variable', () => {
    expect(tracingRequested({})).toBe(false);
    expect(
      tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    ).toBe(false);
  });

  it('is on with an OTLP endpoint, for all signals or for traces', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }),
    ).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });

  it('follows OTEL_TRACES_EXPORTER: an exporter turns it on, none turns it off', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp, console' })).toBe(true);
    expect(
      tracingRequested({
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      }),
    ).toBe(false);
  });

  it('is off whenever OTEL_SDK_DISABLED is true', () => {
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(
      true,
    );
  });
});
