import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, errorCodesTable } from './error-codes.js';

const ROOT = resolve(import.meta.dirname, '../../..');

interface Operation {
  responses: Record<string, { description: string }>;
}

function openapi(): {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties: Record<string, { description?: string }> }>;
  };
} {
  return JSON.parse(readFileSync(resolve(ROOT, 'openapi.json'), 'utf8')) as ReturnType<
    typeof openapi
  >;
}

/** What lies between the errors guide's markers: the table `npm run openapi` writes. */
function guideTable(): string {
  const guide = readFileSync(resolve(ROOT, 'docs/integrators/errors.md'), 'utf8');
  const table = /<!-- error-codes:start[^>]*-->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(guide);
  return table?.[1] ?? '(no error-codes markers in docs/integrators/errors.md)';
}

describe('the problem-code registry', () => {
  it("is the errors guide's table of problem codes (npm run openapi writes it)", () => {
    expect(guideTable()).toBe(errorCodesTable());
  });

  it('writes one table row per code, with its status and description', () => {
    const rows = errorCodesTable().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(ERROR_CODES).length);
    expect(rows[0]).toMatch(/^\| 400 \| `validation_failed` \| the path, query, headers or body/);
  });

  it("is what the OpenAPI document lists as the problem body's codes", () => {
    const listed =
      openapi().components.schemas['ProblemDetails']!.properties['code']!.description ?? '';
    const codes = [...listed.matchAll(/`([a-z_]+)`/g)].map(([, code]) => code);
    expect(codes).toEqual(Object.keys(ERROR_CODES));
  });

  it("gives the OpenAPI document's default error responses their descriptions", () => {
    const responses = openapi().paths['/api/v1/projects']!['get']!.responses;
    expect(responses['401']!.description).toBe(
      `\`unauthenticated\`: ${ERROR_CODES.unauthenticated.description}. ` +
        `\`invalid_token\`: ${ERROR_CODES.invalid_token.description}.`,
    );
    expect(responses['500']!.description).toBe(
      `\`internal_error\`: ${ERROR_CODES.internal_error.description}.`,
    );
  });
});
