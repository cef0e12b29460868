import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotent replay must return the first response as it was; `jsonb` reorders keys, `json`
 * keeps the text as written.
 */
export class IdempotentReplayVerbatim1764000200000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE json USING response_body::json`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb`,
    );
  }
}
