import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { createPlatformKey, type TestPlatformKey } from './support/platform-factories.js';
import { CHROMIUM, CHROMIUM_ARGS } from './support/chromium.js';

function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
}

interface Operation {
  parameters?: Array<{ in: string; required?: boolean }>;
  security?: Array<Record<string, string[]>>;
}

/**
 * The first GET of the document a browser can run as it is: no path parameter, no required
 * query parameter (`GET /platform/v1/tenants` once it exists; whichever comes first meanwhile).
 */
function firstPlainGet(document: { paths: Record<string, { get?: Operation }> }): string {
  const path = Object.entries(document.paths).find(
    ([p, item]) =>
      item.get !== undefined &&
      !p.includes('{') &&
      !(item.get.parameters ?? []).some((param) => param.required),
  )?.[0];
  if (!path) throw new Error('the platform document has no GET without required parameters');
  return path;
}

describe('Swagger UI of the platform API in a real browser', () => {
  let t: TestApp;
  let key: TestPlatformKey;
  let path: string;
  let userDataDir: string;
  let context: BrowserContext | undefined;
  const blocked: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium); ` +
          '.ci/run does this before the tests',
      );
    }
    t = await startTestApp();
    key = await createPlatformKey(t.app, undefined, 'swagger-ui');
    const document = (await (await fetch(`${t.platformUrl}/platform/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: Operation }>;
    };
    path = firstPlainGet(document);
    userDataDir = await mkdtemp(join(tmpdir(), 'grc-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      timeout: 20_000,
    });
    await context.route('**/*', async (route) => {
      if (isLoopback(route.request().url())) return route.continue();
      blocked.push(route.request().url());
      return route.abort('blockedbyclient');
    });
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    await t?.close();
  });

  /**
   * Runs `steps`; on failure, saves a screenshot and names it in the error, with what the page
   * logged as an error and every request of it that failed or answered 4xx/5xx, each with its time
   * since the start.
   */
  async function withScreenshot(page: Page, steps: () => Promise<void>): Promise<void> {
    const started = Date.now();
    const events: string[] = [];
    const at = () => `+${Date.now() - started} ms`;
    page.on('console', (m) => {
      if (m.type() === 'error') events.push(`${at()} console: ${m.text()}`);
    });
    page.on('pageerror', (e) => events.push(`${at()} page error: ${e.message}`));
    page.on('requestfailed', (r) =>
      events.push(`${at()} failed: ${r.url()} (${r.failure()?.errorText ?? '?'})`),
    );
    page.on('response', (r) => {
      if (r.status() >= 400) events.push(`${at()} ${r.status()}: ${r.url()}`);
    });
    try {
      await steps();
    } catch (err) {
      const file = join(tmpdir(), `swagger-ui-platform-failure-${Date.now()}.png`);
      const saved = await page
        .screenshot({ path: file })
        .then(() => `screenshot: ${file}`)
        .catch((e: unknown) => `no screenshot (${String(e)})`);
      const message = err instanceof Error ? err.message : String(err);
      const seen = events.length ? events.join('\n') : 'no page errors, no failed requests';
      throw new Error(`${message}\n${saved}\n${seen} (failed ${at()})`, { cause: err });
    }
  }

  it('loads, takes a platform key in the Authorize dialog and runs a GET with it', async () => {
    const page = context!.pages()[0] ?? (await context!.newPage());
    page.setDefaultTimeout(10_000);
    const sent: Array<string | undefined> = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === path) sent.push(req.headers()['authorization']);
    });

    await withScreenshot(page, async () => {
      // a browser's first page loads the whole bundle and renders the document: generous, as in
      // the integration API's test
      await page.goto(`${t.platformUrl}/platform/v1/docs`, {
        waitUntil: 'domcontentloaded',
        timeout: 30_000,
      });
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });
      expect(await page.locator('.swagger-ui .info .title').textContent()).toContain(
        'GRC Platform API',
      );

      await page.locator('button.authorize').first().click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      await dialog.waitFor();
      // the platform key's scheme: "platform-key (http, Bearer)"
      const bearer = dialog.locator('.auth-container', {
        has: page.locator('h4', { hasText: /platform-key/ }),
      });
      await bearer.locator('input[aria-label="auth-bearer-value"]').fill(key.key);
      await bearer.locator('button.modal-btn', { hasText: /^Authorize$/ }).click();
      // authorized: Swagger UI swaps the button for Logout and masks the key
      await bearer.locator('button.modal-btn', { hasText: /^Logout$/ }).waitFor();
      expect(await bearer.locator('.errors').count()).toBe(0);
      await dialog.locator('button.close-modal').click();
      await dialog.waitFor({ state: 'detached' });

      const operation = page.locator('.opblock.opblock-get', {
        has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
      });
      await operation.locator('.opblock-summary-control').click();
      const tryOut = operation.locator('button.try-out__btn');
      if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
      await operation.locator('button.execute').click();

      const response = operation.locator('.live-responses-table tbody .response').first();
      await response.waitFor();
      // the UI fills the status in a moment later: read again every 50 ms, for up to 1 s
      const status = async () =>
        (await response.locator('.response-col_status').textContent())?.trim();
      let shown = await status();
      for (const deadline = Date.now() + 1_000; shown !== '200' && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50));
        shown = await status();
      }
      expect(shown).toBe('200');
      const curl = await operation.locator('.curl-command').textContent();
      expect(curl).toMatch(/Authorization: Bearer gpk_/);
      // the key does not outlive the page: not in the browser's storage
      const stored = await page.evaluate(() =>
        JSON.stringify([{ ...localStorage }, { ...sessionStorage }]),
      );
      expect(stored).not.toContain(key.key);
    });

    // the one request the UI made to the operation carried the key
    expect(sent).toEqual([key.auth]);
    expect(blocked).toEqual([]);
    // past jest's 60 s: the steps' own timeouts fail first, with withScreenshot's diagnostics
  }, 180_000);
});
