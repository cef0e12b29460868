import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CREDENTIALS_CHANGED_CHANNEL } from '../src/common/database/schema-constants.js';

/**
 * Retention (src/modules/retention/): the indexes its batched deletes walk, and a delete trigger
 * on access_tokens that announces a credential change only when a deleted token could still
 * have been valid. The sweeper deletes tokens expired or revoked for a grace period: announcing
 * those would empty every replica's credential cache on each sweep for nothing.
 */
export class Retention1764002300000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX access_tokens_revoked ON access_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
      CREATE INDEX events_created ON events (created_at);
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

      CREATE FUNCTION notify_live_access_tokens_deleted() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM deleted WHERE revoked_at IS NULL AND expires_at > now()) THEN
          UPDATE credential_generation SET value = value + 1;
          PERFORM pg_notify('${CREDENTIALS_CHANGED_CHANNEL}', '');
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER access_tokens_changed ON access_tokens;
      CREATE TRIGGER access_tokens_changed AFTER UPDATE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      CREATE TRIGGER access_tokens_deleted AFTER DELETE ON access_tokens
        REFERENCING OLD TABLE AS deleted
        FOR EACH STATEMENT EXECUTE FUNCTION notify_live_access_tokens_deleted();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER access_tokens_deleted ON access_tokens;
      DROP TRIGGER access_tokens_changed ON access_tokens;
      CREATE TRIGGER access_tokens_changed AFTER UPDATE OR DELETE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
      DROP FUNCTION notify_live_access_tokens_deleted();
      DROP INDEX webhook_deliveries_event;
      DROP INDEX events_created;
      DROP INDEX access_tokens_revoked;
    `);
  }
}
