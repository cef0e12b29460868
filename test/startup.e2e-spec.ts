import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createTestDatabase } from './support/database.js';
import { startService } from './support/service-process.js';

/** `node dist/src/main.js` as `npm start` runs it: on Node 24, on the adapter HTTP_ADAPTER names. */
describe('service start-up', () => {
  const env = (database: Record<string, string>, adapter?: string): Record<string, string> => ({
    ...database,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    WORKERS_ENABLED: 'false',
    LOG_LEVEL: 'info',
    // empty is unset, whatever HTTP_ADAPTER this test run has
    HTTP_ADAPTER: adapter ?? '',
  });

  it.each([
    ['express', undefined],
    ['express', 'express'],
    ['fastify', 'fastify'],
  ])('names Node 24 and %s (HTTP_ADAPTER=%s) and serves the Swagger UI', async (name, adapter) => {
    const db = await createTestDatabase();
    const service = await startService(env(db.env, adapter));
    try {
      expect(service.output()).toMatch(
        new RegExp(`"msg":"GRC Integration API listening \\(Node v24\\.\\d+\\.\\d+, ${name}\\)`),
      );
      expect(service.output()).toContain(`"http_adapter":"${name}"`);
      const docs = await fetch(`${service.baseUrl}/api/v1/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger-ui');
    } finally {
      await service.stop();
      await db.drop();
    }
  });

  it('refuses an unknown adapter, naming the variable and the choices', async () => {
    const db = await createTestDatabase();
    try {
      const refused = await startService(env(db.env, 'koa')).then(
        async (service) => {
          await service.stop();
          return 'started';
        },
        (err: unknown) => String(err),
      );
      expect(refused).toContain('HTTP_ADAPTER must be one of: express, fastify');
    } finally {
      await db.drop();
    }
  });
});
