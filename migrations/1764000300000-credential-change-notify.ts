import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Channel on which every change that can alter who a credential is, or what it may do, is announced. */
export const CREDENTIALS_CHANGED_CHANNEL = 'credentials_changed';

/**
 * Services keep verified credentials in memory (src/modules/auth/principal-cache.ts) and forget them
 * all when this channel speaks. The triggers are on the tables, not in the code that changes them,
 * so the CLI, another replica, a migration or a hand-written UPDATE all invalidate alike. New
 * access tokens are the one change left out: nothing cached depends on a row that did not exist,
 * and the token endpoint would otherwise empty every cache hundreds of times a second.
 * A notification is sent at commit; identical ones of one transaction are folded into one.
 */
export class CredentialChangeNotify1764000300000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CREDENTIALS_CHANGED_CHANNEL}', '');
        RETURN NULL;
      END $$;

      CREATE TRIGGER access_tokens_changed AFTER UPDATE OR DELETE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      CREATE TRIGGER api_clients_changed AFTER UPDATE OR DELETE OR TRUNCATE ON api_clients
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      CREATE TRIGGER personal_access_tokens_changed
        AFTER UPDATE OR DELETE OR TRUNCATE ON personal_access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      CREATE TRIGGER tenants_changed AFTER UPDATE OR DELETE OR TRUNCATE ON tenants
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      CREATE TRIGGER tenant_entitlement_overrides_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenant_entitlement_overrides
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER access_tokens_changed ON access_tokens;
      DROP TRIGGER api_clients_changed ON api_clients;
      DROP TRIGGER personal_access_tokens_changed ON personal_access_tokens;
      DROP TRIGGER tenants_changed ON tenants;
      DROP TRIGGER tenant_entitlement_overrides_changed ON tenant_entitlement_overrides;
      DROP FUNCTION notify_credentials_changed();
    `);
  }
}
