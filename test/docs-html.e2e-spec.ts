import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './support/chromium.js';

// `npm run docs` (scripts/build-docs.mjs), then every operation looked up in the built pages
jest.setTimeout(180_000);

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs-html');

interface Operation {
  operationId: string;
  summary: string;
  tag: string;
}

/** Every operation of a document: its paths' and its webhooks' (OpenAPI 3.1), with their first tag. */
function operationsOf(specFile: string): Operation[] {
  type Op = { operationId?: string; summary?: string; tags?: string[] };
  const doc = JSON.parse(readFileSync(join(ROOT, specFile), 'utf8')) as {
    paths?: Record<string, Record<string, Op>>;
    webhooks?: Record<string, Record<string, Op>>;
  };
  const items = [...Object.values(doc.paths ?? {}), ...Object.values(doc.webhooks ?? {})];
  return items.flatMap((item) =>
    Object.values(item)
      .filter((op): op is Op => typeof op === 'object' && op !== null && 'responses' in op)
      .map((op) => ({
        operationId: op.operationId!,
        summary: op.summary!,
        tag: op.tags![0]!,
      })),
  );
}

/** Where Redoc 3 renders an operation: `/<tag, lower case, spaces as hyphens>/<operationId, lower case>`. */
function sectionId({ tag, operationId }: Operation): string {
  return `/${tag.toLowerCase().replace(/\s+/g, '-')}/${operationId.toLowerCase()}`;
}

describe('npm run docs: the static API reference in a real browser', () => {
  let userDataDir: string;
  let context: BrowserContext | undefined;
  const remote: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium); ` +
          '.ci/run does this before the tests',
      );
    }
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-docs.mjs')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    userDataDir = await mkdtemp(join(tmpdir(), 'grc-chromium-docs-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      timeout: 20_000,
    });
    // the page is a file: it may read itself and what it carries inline, and nothing else
    await context.route('**/*', async (route) => {
      const { protocol } = new URL(route.request().url());
      if (['file:', 'data:', 'blob:', 'about:'].includes(protocol)) return route.continue();
      remote.push(route.request().url());
      return route.abort('blockedbyclient');
    });
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  it.each([
    ['api.html', 'openapi.json'],
    ['platform.html', 'openapi.platform.json'],
  ])('%s shows every operation of %s, loading nothing from the network', async (page, spec) => {
    const html = readFileSync(join(OUT, page), 'utf8');
    expect(html).not.toMatch(/<script[^>]+\bsrc=["']https?:/i);
    const operations = operationsOf(spec);
    expect(operations.length).toBeGreaterThan(10);

    const tab = await context!.newPage();
    const url = pathToFileURL(join(OUT, page)).href;
    const missing: string[] = [];
    try {
      for (const operation of operations) {
        const id = sectionId(operation);
        await tab.goto(`${url}#${id}`);
        const section = await tab
          .waitForSelector(`[data-section-id="${id}"]`, { timeout: 10_000 })
          .catch(() => null);
        const text = (await section?.innerText()) ?? '';
        if (!text.startsWith(operation.summary)) {
          missing.push(`${operation.operationId} (${id}): ${JSON.stringify(text.slice(0, 80))}`);
        }
      }
    } finally {
      await tab.close();
    }
    expect(missing).toEqual([]);
    expect(remote).toEqual([]);
  });

  it('finds no section for an operation the document does not have', async () => {
    const tab = await context!.newPage();
    try {
      const url = pathToFileURL(join(OUT, 'api.html')).href;
      await tab.goto(`${url}#/projects/projects_list`);
      await tab.waitForSelector('[data-section-id="/projects/projects_list"]', { timeout: 10_000 });
      expect(await tab.$('[data-section-id="/projects/projects_delete"]')).toBeNull();
    } finally {
      await tab.close();
    }
  });
});
