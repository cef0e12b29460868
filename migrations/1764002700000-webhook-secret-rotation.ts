import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secret rotation (issue 20): a rotation keeps the replaced secret, sealed like the current one,
 * until `previous_secret_expires_at`; until then every attempt is signed with both. A rotation
 * with no grace period keeps nothing. Both columns are set together or not at all.
 */
export class WebhookSecretRotation1764002700000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        ADD COLUMN previous_secret_sealed bytea,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT webhooks_previous_secret_pair
          CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        DROP CONSTRAINT webhooks_previous_secret_pair,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret_sealed;
    `);
  }
}
