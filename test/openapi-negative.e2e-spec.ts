import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { documentRefusal } from './support/openapi-check.js';
import { createDocument, createProject, type TestDocument } from './support/read-factories.js';
import { createWebhook } from './support/webhook-factories.js';

interface Case {
  name: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  headers?: Record<string, string>;
}

/**
 * Requests a property-based tester draws from the document: those it now refuses (integer ids,
 * closed bodies, lengths, counts, formats) are refused by the service alike, and a valid one is
 * accepted by both.
 */
describe('OpenAPI: negative cases the document encodes', () => {
  let t: TestApp;
  let caller: TestCaller;
  let webhookId: number;
  let doc: TestDocument;
  const hook = { name: 'n', endpoint_url: 'https://example.com/hook', events: ['*'] };

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
    webhookId = (await createWebhook(t.baseUrl, caller.auth, 'https://example.com/a')).webhookId;
    const projectId = await createProject(t.app, caller.tenantId);
    doc = await createDocument(t.app, caller.tenantId, projectId);
  });
  afterAll(async () => {
    await t?.close();
  });

  const cases: Case[] = [
    { name: 'a fractional path id', method: 'GET', path: () => '/webhooks/1.5' },
    { name: 'a path id past int32', method: 'GET', path: () => '/webhooks/2147483648' },
    { name: 'a zero path id', method: 'GET', path: () => '/webhooks/0' },
    {
      name: 'an unknown body field',
      method: 'POST',
      path: () => '/webhooks',
      body: () => ({ ...hook, colour: 'red' }),
    },
    {
      name: 'no events',
      method: 'POST',
      path: () => '/webhooks',
      body: () => ({ ...hook, events: [] }),
    },
    {
      name: 'an endpoint_url that is not a URI',
      method: 'POST',
      path: () => '/webhooks',
      body: () => ({ ...hook, endpoint_url: 'not a url' }),
    },
    {
      name: 'an empty PATCH',
      method: 'PATCH',
      path: () => `/webhooks/${webhookId}`,
      body: () => ({}),
    },
    {
      name: 'an empty lock_token',
      method: 'POST',
      path: () => `/documents/${doc.documentId}/checkin`,
      body: () => ({ lock_token: '' }),
    },
    {
      name: 'an Idempotency-Key of 256 characters',
      method: 'POST',
      path: () => `/documents/${doc.documentId}/external-revisions`,
      body: () => ({ content: { a: 1 }, base_version_id: doc.versionIds[0] }),
      headers: { 'Idempotency-Key': 'k'.repeat(256) },
    },
    {
      name: 'a fractional ttl_minutes',
      method: 'POST',
      path: () => `/documents/${doc.documentId}/checkout`,
      body: () => ({ ttl_minutes: 30.5 }),
    },
  ];

  it.each(cases)('$name: the service and the document both refuse it', async (c) => {
    const body = c.body?.();
    const res = await call(t.baseUrl, c.method, c.path(), {
      auth: caller.auth,
      body,
      headers: c.headers,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const refusal = documentRefusal(c.method, `${t.baseUrl}/api/v1${c.path()}`, body, c.headers);
    expect(refusal).not.toBeNull();
  });

  it('a valid request: the document and the service both accept it', async () => {
    const body = { ...hook, events: ['document.version_created'] };
    expect(documentRefusal('POST', `${t.baseUrl}/api/v1/webhooks`, body)).toBeNull();
    const res = await call(t.baseUrl, 'POST', '/webhooks', { auth: caller.auth, body });
    expect(res.status).toBe(201);
    expect(Number.isInteger(res.body.webhookId)).toBe(true);
  });
});
