import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';

const ROOT = resolve(import.meta.dirname, '..');
const GUIDE = join(ROOT, 'docs/integrators/verifying-webhooks.md');

type Verify = (secret: string, headers: Record<string, string>, rawBody: Buffer) => boolean;

/** The guide's ```js block: the Node verifier written without a library. */
function nodeSnippet(): string {
  const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/^```js\n([\s\S]*?)^```/gm)];
  expect(blocks).toHaveLength(1);
  return blocks[0]![1]!;
}

const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const previous = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
const stranger = `whsec_${Buffer.from('a different key, 32 bytes long!!').toString('base64')}`;
const body = '{"id": "evt_1", "data": {"webhookId": 1}, "type": "webhook.test", "tenant_id": 1}';

/** Headers as the service sends them during a rotation's grace: the new signature, then the old. */
function delivery(at: Date): Record<string, string> {
  const signatures = [secret, previous].map((s) => new Webhook(s).sign('evt_1', at, body));
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

describe("the guide's Node webhook verifier", () => {
  const dir = mkdtempSync(join(tmpdir(), 'grc-doc-snippet-'));
  let verify: Verify;

  beforeAll(async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, nodeSnippet());
    ({ verify } = (await import(pathToFileURL(file).href)) as { verify: Verify });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts a delivery signed as Standard Webhooks signs it, with either secret', () => {
    const headers = delivery(new Date());
    expect(verify(secret, headers, Buffer.from(body))).toBe(true);
    expect(verify(previous, headers, Buffer.from(body))).toBe(true);
  });

  it('refuses another secret, a changed body or id, a stale timestamp and no signature', () => {
    const headers = delivery(new Date());
    expect(verify(stranger, headers, Buffer.from(body))).toBe(false);
    expect(verify(secret, headers, Buffer.from(`${body} `))).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-id': 'evt_2' }, Buffer.from(body))).toBe(false);
    const stale = delivery(new Date(Date.now() - 6 * 60_000));
    expect(verify(secret, stale, Buffer.from(body))).toBe(false);
    const unsigned = { ...headers };
    delete unsigned['webhook-signature'];
    expect(verify(secret, unsigned, Buffer.from(body))).toBe(false);
  });
});
