import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { createClient, createTenant, type TestClient } from './support/factories.js';
import { createProject } from './support/read-factories.js';
import { CHROMIUM, CHROMIUM_ARGS } from './support/chromium.js';

function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
}

describe('Swagger UI in a real browser', () => {
  let t: TestApp;
  let client: TestClient;
  let projectName: string;
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
    const tenantId = await createTenant(t.app, 'starter');
    client = await createClient(t.app, tenantId, { name: 'swagger demo' });
    projectName = `Swagger project ${Date.now()}`;
    await createProject(t.app, tenantId, { name: projectName, description: 'seeded for the UI' });
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
      const file = join(tmpdir(), `swagger-ui-failure-${Date.now()}.png`);
      const saved = await page
        .screenshot({ path: file })
        .then(() => `screenshot: ${file}`)
        .catch((e: unknown) => `no screenshot (${String(e)})`);
      const message = err instanceof Error ? err.message : String(err);
      const seen = events.length ? events.join('\n') : 'no page errors, no failed requests';
      throw new Error(`${message}\n${saved}\n${seen} (failed ${at()})`, { cause: err });
    }
  }

  it('authorizes with client credentials and runs GET /api/v1/projects', async () => {
    const page = context!.pages()[0] ?? (await context!.newPage());
    page.setDefaultTimeout(10_000);
    const tokenRequests: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/api/v1/oauth/token')) tokenRequests.push(req.method());
    });

    await withScreenshot(page, async () => {
      // the first page of a browser just started loads and runs the 1.4 MB bundle (blocking
      // scripts, inside goto) and renders the spec: ~1 s alone, past 10 s for the render on a CI
      // machine with a cold disk cache while other suites ran (stop 28)
      await page.goto(`${t.baseUrl}/api/v1/docs`, {
        waitUntil: 'domcontentloaded',
        timeout: 30_000,
      });
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });

      await page.locator('button.authorize').first().click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      await dialog.waitFor();
      // the OAuth2 scheme's block, titled "oauth2 (OAuth2, clientCredentials)"
      const oauth = dialog.locator('.auth-container', {
        has: page.locator('h4', { hasText: /OAuth2, clientCredentials/ }),
      });
      await oauth.locator('input[data-name="clientId"]').fill(client.clientId);
      await oauth.locator('input[data-name="clientSecret"]').fill(client.clientSecret);
      // Swagger UI lists the flow's scopes (hidden checkboxes behind labels) with a select-all link
      const selectAll = oauth.locator('.scopes a', { hasText: /select all/i });
      if (await selectAll.count()) await selectAll.click();
      const scopeBoxes = oauth.locator('.scopes input[type="checkbox"]');
      const scopeCount = await scopeBoxes.count();
      for (let i = 0; i < scopeCount; i++) {
        const box = scopeBoxes.nth(i);
        if (!(await box.isChecked())) {
          await oauth.locator(`label[for="${await box.getAttribute('id')}"]`).click();
        }
        expect(await box.isChecked()).toBe(true);
      }
      await oauth.locator('button.modal-btn', { hasText: /^Authorize$/ }).click();
      // authorized: Swagger UI swaps the button for Logout and masks the secret
      await oauth.locator('button.modal-btn', { hasText: /^Logout$/ }).waitFor();
      expect(await oauth.locator('.errors').count()).toBe(0);
      await dialog.locator('button.close-modal').click();
      await dialog.waitFor({ state: 'detached' });

      const operation = page.locator('.opblock.opblock-get', {
        has: page.locator('.opblock-summary-path[data-path="/api/v1/projects"]'),
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
      const body = await response.locator('.response-col_description pre').first().textContent();
      const listed = JSON.parse(body ?? 'null') as { data: Array<{ name: string }> };
      expect(listed.data.map((p) => p.name)).toEqual([projectName]);
      // the request the UI sent carried the token it obtained
      const curl = await operation.locator('.curl-command').textContent();
      expect(curl).toMatch(/Authorization: Bearer gat_/);
      // nothing of the credentials outlives the page: not in the browser's storage
      const stored = await page.evaluate(() =>
        JSON.stringify([{ ...localStorage }, { ...sessionStorage }]),
      );
      expect(stored).not.toContain(client.clientSecret);
      expect(stored).not.toContain('gat_');
    });

    expect(tokenRequests).toEqual(['POST']);
    expect(blocked).toEqual([]);
    // past jest's 60 s: the steps' own timeouts (30 + 30 s for the first page, 10 s each after)
    // fail first, so a slow run reports withScreenshot's diagnostics, not jest's timeout
  }, 180_000);
});
