import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/app.js';
import { runCli, runCliInProcess } from './support/cli.js';
import { createCaller, type TestCaller } from './support/factories.js';
import { call } from './support/http.js';
import { createProject } from './support/read-factories.js';

// `testing reset` empties every tenant: it exists only where TESTING_COMMANDS=true (the kit's
// services), never in an ordinary CLI or service.
// The testing commands run in a CLI process of their own (runCliInProcess): TESTING_COMMANDS is
// that process's setting, set and unset between its calls.
describe('CLI: the testing commands', () => {
  let t: TestApp;
  let caller: TestCaller;

  beforeAll(async () => {
    t = await startTestApp();
    caller = await createCaller(t.app);
  });
  afterAll(async () => {
    delete process.env.TESTING_COMMANDS;
    await t.close();
  });

  it('are unknown commands without TESTING_COMMANDS, and touch nothing', async () => {
    const reset = await runCliInProcess(t, 'testing', 'reset');
    expect(reset.code).toBe(2);
    expect(reset.out.error).toMatchObject({ code: 'usage' });
    expect(reset.out.error.message).toMatch(/unknown command 'testing'/);
    expect((await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth })).status).toBe(200);
  });

  // one CLI process per test: each boots the commands on its own (seconds each under load)
  describe('with TESTING_COMMANDS=true', () => {
    beforeAll(() => {
      process.env.TESTING_COMMANDS = 'true';
    });

    it('a --tenants given empty (an unset shell variable) is a usage error, not "every tenant"', async () => {
      const other = await createCaller(t.app, { plan: 'starter' });
      const otherProject = await createProject(t.app, other.tenantId);
      const empty = await runCliInProcess(t, 'testing', 'reset', '--tenants', '');
      expect(empty.code).toBe(2);
      expect(empty.out.error.message).toBe('--tenants must name at least one tenant id');
      const stillThere = await call(t.baseUrl, 'GET', `/projects/${otherProject}`, {
        auth: other.auth,
      });
      expect(stillThere.status).toBe(200);
    });

    it('emit checks what it is given', async () => {
      const emit = await runCliInProcess(
        t,
        'testing',
        'emit',
        '--tenant',
        String(caller.tenantId),
        '--type',
        'document.checked_in',
        '--data',
        '[1]',
      );
      expect(emit.code).toBe(2);
      expect(emit.out.error.message).toBe('--data must be a JSON object');
    });

    it("reset empties the tenants it names, keeps their overrides and others' data", async () => {
      const other = await createCaller(t.app, { plan: 'starter' });
      const otherProject = await createProject(t.app, other.tenantId);
      // an override is part of the tenant: a reset keeps it (the service's own CLI sets it)
      const granted = await runCli(
        t,
        'tenant',
        'entitlements',
        '--tenant',
        String(caller.tenantId),
        '--remove',
        'api.locks',
      );
      expect(granted.code).toBe(0);
      const reset = await runCliInProcess(
        t,
        'testing',
        'reset',
        '--tenants',
        String(caller.tenantId),
      );
      expect(reset.code).toBe(0);
      expect(reset.out.tables).toEqual(expect.arrayContaining(['projects', 'access_tokens']));
      expect(reset.out.tables).not.toContain('audit_log');
      expect((await call(t.baseUrl, 'GET', '/projects', { auth: caller.auth })).status).toBe(401);
      // the other tenant's data is untouched
      const kept = await call(t.baseUrl, 'GET', `/projects/${otherProject}`, { auth: other.auth });
      expect(kept.status).toBe(200);
      const shown = await runCli(t, 'tenant', 'entitlements', '--tenant', String(caller.tenantId));
      expect(shown.out.entitlements).not.toContain('api.locks');
    });
  });
});
