import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE, CREDENTIALS_CHANGED_CHANNEL } from '../src/common/database/schema-constants.js';

/**
 * Services keep verified credentials in memory (src/modules/auth/credential-cache.ts). Every
 * change that could alter one bumps `credential_generation` in its own transaction and notifies
 * `credentials_changed` at commit: the notification empties the caches within milliseconds, and
 * the generation, read in the same round trip that opens every tenant transaction, closes even
 * that window — a request whose credential was verified at an older generation is verified again
 * before it touches data (src/common/database/tenant-transactions.ts).
 * The triggers are on the tables, not in the code that changes them, so the CLI, another replica,
 * a migration or a hand-written UPDATE all count alike. New access tokens are the one change left
 * out: nothing verified depends on a row that did not exist, and the token endpoint would
 * otherwise bump the generation hundreds of times a second.
 */
export class CredentialChangeNotify1764000300000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credential_generation (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        value bigint NOT NULL
      );
      INSERT INTO credential_generation (value) VALUES (1);
      GRANT SELECT ON credential_generation TO ${APP_ROLE};

      -- SECURITY DEFINER: whichever role makes the change, the counter moves
      CREATE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        UPDATE credential_generation SET value = value + 1;
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
      DROP TABLE credential_generation;
    `);
  }
}
