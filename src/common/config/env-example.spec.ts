import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CONFIG_KEYS, loadConfig } from './load-config.js';

/** `.env.example`'s settings: `NAME=value` lines, and `# NAME=value` for those without a default. */
function exampleSettings(): { shown: Map<string, string>; commented: Set<string> } {
  const text = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
  const shown = new Map<string, string>();
  const commented = new Set<string>();
  for (const line of text.split('\n')) {
    const set = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (set) shown.set(set[1]!, set[2]!);
    const unset = /^# ([A-Z][A-Z0-9_]*)=/.exec(line);
    if (unset) commented.add(unset[1]!);
  }
  return { shown, commented };
}

/** The OpenTelemetry SDK reads its own standard variables; the service's config never sees them. */
const isOtel = (name: string): boolean => name.startsWith('OTEL_');

describe('.env.example', () => {
  it('names every setting the config reads, and nothing else', () => {
    const { shown, commented } = exampleSettings();
    const named = [...shown.keys(), ...commented].filter((n) => !isOtel(n)).sort();
    expect(named).toEqual([...CONFIG_KEYS].sort());
  });

  it('shows tracing only as commented standard OTEL_* variables, so it stays off by default', () => {
    const { shown, commented } = exampleSettings();
    expect([...shown.keys()].filter(isOtel)).toEqual([]);
    expect([...commented].filter(isOtel)).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('shows the defaults: its values load to the config of an empty environment', () => {
    const { shown } = exampleSettings();
    const fromExample = loadConfig(Object.fromEntries(shown));
    const defaults = loadConfig({});
    for (const key of shown.keys()) {
      expect({ key, value: fromExample[key as keyof typeof fromExample] }).toEqual({
        key,
        value: defaults[key as keyof typeof defaults],
      });
    }
  });
});

describe('a loaded config', () => {
  it('cannot be changed after validation', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { PORT: number }).PORT = 1;
    }).toThrow(TypeError);
  });
});
