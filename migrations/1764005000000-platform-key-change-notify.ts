import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform API keeps verified platform keys in memory, in the same cache as the tenants'
 * credentials (src/platform-api/platform-key-verifier.ts). A revoked, deleted or changed key
 * bumps `credential_generation` and notifies `credentials_changed` at commit, as a revoked token
 * does (1764000300000-credential-change-notify.ts): the notification empties every process's
 * cache, and the generation, read in the round trip that opens each tenant transaction, makes
 * the key be verified again before a request holding it touches data. New keys are left out,
 * like new access tokens: nothing verified depends on a row that did not exist.
 */
export class PlatformKeyChangeNotify1764005000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TRIGGER platform_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON platform_keys
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER platform_keys_changed ON platform_keys;`);
  }
}
