import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

// tsc over three tiny consumers of the built package (dist/, as `npm test` just built it), one
// per moduleResolution a platform team may use: the kit's and the API's types must resolve in
// each, and a delivery's payload must be narrowed to its event type (@ts-expect-error lines).
jest.setTimeout(120_000);

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURES = join(ROOT, 'test/fixtures/type-consumers');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

describe('the testing kit types, from a consumer', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'grc-type-consumers-'));
    // the package as installed: resolved by name through its package.json, outside the repo. Its
    // files copied, not linked: a link resolves to the checkout, where a name the package gives
    // itself (`grc-integration-api/platform-api-types`) has no node_modules folder to be found in
    const installed = join(work, 'node_modules/grc-integration-api');
    mkdirSync(installed, { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    for (const dir of ['dist/src', 'examples']) {
      cpSync(join(ROOT, dir), join(installed, dir), {
        recursive: true,
        filter: (src) => !src.endsWith('.map'),
      });
    }
    // its dependencies (openapi-fetch's types): this checkout's install
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
    symlinkSync(join(ROOT, 'node_modules/@types'), join(work, 'node_modules/@types'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(['node16', 'bundler', 'node'])(
    'type-checks under moduleResolution %s',
    async (resolution) => {
      const dir = join(work, resolution);
      cpSync(join(FIXTURES, resolution), dir, { recursive: true });
      const result = await promisify(execFile)(process.execPath, [TSC, '-p', dir]).then(
        () => ({ code: 0, output: '' }),
        (err: { code: number; stdout: string; stderr: string }) => ({
          code: err.code,
          output: err.stdout + err.stderr,
        }),
      );
      expect(result).toEqual({ code: 0, output: '' });
    },
  );
});
