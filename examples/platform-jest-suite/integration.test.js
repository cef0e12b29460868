// A plain CommonJS jest suite, as the platform team writes them: the service comes from the
// package's tarball (`npm install ../../grc-integration-api-1.0.0.tgz`, see docs/platform/testing-kit.md),
// started once for the whole run by global-setup.js; each test starts from empty tenants.
const { attachIntegrationApi } = require('grc-integration-api/testing');

let api;
let receiver;
let acme;
let documentId;
const timings = {};

beforeAll(async () => {
  const started = Date.now();
  api = await attachIntegrationApi();
  receiver = await api.webhookReceiver();
  timings.attachMs = Date.now() - started;
});

beforeEach(async () => {
  // this suite's tenants emptied (their data and credentials), its receiver's deliveries forgotten
  timings.resetMs = (await api.reset()).ms;
  const started = Date.now();
  acme = await api.createTenant({
    name: 'Acme',
    projects: [{ name: 'ISO 27001', documents: [{ title: 'Access policy', content: { v: 1 } }] }],
    webhooks: [{ url: receiver.url, events: ['external_revision.accepted'] }],
  });
  documentId = acme.projects[0].documents[0].documentId;
  timings.fixturesMs = Date.now() - started;
});

afterAll(async () => {
  if (process.env.TIMINGS_FILE) {
    require('node:fs').writeFileSync(process.env.TIMINGS_FILE, JSON.stringify(timings));
  }
  // closes this suite's receiver; the service is global-teardown.js's to stop
  await api?.stop();
});

function call(method, path, token, body) {
  return fetch(`${api.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
}

test('a staged revision accepted through the platform API arrives as a signed webhook', async () => {
  const staged = await call('POST', `/documents/${documentId}/external-revisions`, acme.token, {
    content: { v: 2 },
  });
  expect(staged.status).toBe(201);
  const { revisionId } = await staged.json();

  // as the platform's review screen accepts it, in the name of its reviewer
  const accepted = await api.platform.POST('/platform/v1/revisions/{revisionId}/accept', {
    params: { path: { revisionId }, header: { 'X-Acting-User': 'jane@acme' } },
    body: { note: 'checked' },
  });
  expect(accepted.response.status).toBe(200);
  expect(accepted.data).toMatchObject({ revisionId, status: 'accepted' });

  const delivery = await receiver.waitFor('external_revision.accepted');
  expect(delivery.verified).toBe(true);
  expect(delivery.body.data).toMatchObject({ revisionId });
});

test('a checked-out document refuses a second checkout and a staging without its lock token', async () => {
  const first = await call('POST', `/documents/${documentId}/checkout`, acme.token, {});
  expect(first.status).toBe(201);
  const second = await call('POST', `/documents/${documentId}/checkout`, acme.token, {});
  expect(second.status).toBe(423);
  expect((await second.json()).code).toBe('document_locked');
  const staged = await call('POST', `/documents/${documentId}/external-revisions`, acme.token, {
    content: { v: 4 },
  });
  expect(staged.status).toBe(423);
});

test('a token without the scope is refused with 403', async () => {
  const reader = await api.createTenant({ name: 'Reader', scopes: ['projects:read'] });
  const res = await call('POST', `/documents/${documentId}/external-revisions`, reader.token, {
    content: { v: 3 },
  });
  expect(res.status).toBe(403);
  expect((await res.json()).code).toBe('insufficient_scope');
});
