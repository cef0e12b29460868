import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AppConfig } from './app-config.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** `| \`PORT\` | …` rows of the operators' configuration guide, in their order. */
function documentedVariables(): string[] {
  const guide = readFileSync(resolve(ROOT, 'docs/operators/configuration.md'), 'utf8');
  return [...guide.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map(([, name]) => name!);
}

describe('the configuration guide', () => {
  it('has one row for every setting of AppConfig, and none more', () => {
    const settings = Object.keys(new AppConfig());
    const documented = documentedVariables();
    expect(settings.length).toBeGreaterThan(40);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...settings].sort());
  });

  it('names every setting in .env.example too', () => {
    const example = readFileSync(resolve(ROOT, '.env.example'), 'utf8');
    const named = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map(([, n]) => n!));
    expect(Object.keys(new AppConfig()).filter((name) => !named.has(name))).toEqual([]);
  });
});
