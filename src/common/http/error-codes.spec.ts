import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES } from './error-codes.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** `| 409 | \`webhook_revoked\` | …` rows of the errors guide's table of problem codes. */
function guideCodes(): Record<string, number> {
  const guide = readFileSync(resolve(ROOT, 'docs/integrators/errors.md'), 'utf8');
  const rows = [...guide.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)];
  return Object.fromEntries(rows.map(([, status, code]) => [code!, Number(status)]));
}

describe('the problem-code registry', () => {
  it("is the errors guide's table of problem codes, code for code and status for status", () => {
    const registry = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]),
    );
    expect(guideCodes()).toEqual(registry);
  });

  it("is what the OpenAPI document lists as the problem body's codes", () => {
    const doc = JSON.parse(readFileSync(resolve(ROOT, 'openapi.json'), 'utf8')) as {
      components: {
        schemas: Record<string, { properties: Record<string, { description?: string }> }>;
      };
    };
    const listed = doc.components.schemas['ProblemDetails']!.properties['code']!.description ?? '';
    const codes = [...listed.matchAll(/`([a-z_]+)`/g)].map(([, code]) => code);
    expect(codes).toEqual(Object.keys(ERROR_CODES));
  });
});
