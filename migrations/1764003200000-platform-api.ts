import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform API's foundation:
 * - `platform_keys`: the host platform's bearer keys (`gpk_…`), stored as SHA-256 digests, with
 *   their scopes; not a tenant's rows (a key acts for the platform across tenants).
 * - `audit_log.actor`: the person in the platform's UI on whose behalf a platform key wrote
 *   (`X-Acting-User`), beside the credential.
 * - the role `grc_platform`, to which the platform API's cross-tenant reads switch: SELECT on the
 *   tenant tables through a policy of its own, nothing else. Row-level security stays forced on
 *   every table; this role is one more policy holder, not a way around them.
 */
const PLATFORM_ROLE = 'grc_platform';
const READABLE = [
  'api_clients',
  'personal_access_tokens',
  'projects',
  'project_files',
  'documents',
  'document_versions',
  'external_revisions',
  'document_locks',
  'events',
  'webhooks',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'audit_log',
  'project_counts',
];

export class PlatformApi1764003200000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        CREATE ROLE ${PLATFORM_ROLE} NOLOGIN NOBYPASSRLS;
      EXCEPTION WHEN duplicate_object THEN NULL; END $$;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('GRANT ${PLATFORM_ROLE} TO %I', current_user);
      EXCEPTION WHEN others THEN NULL; END $$;
    `);
    await q.query(`
      CREATE TABLE platform_keys (
        id serial PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        scopes text[] NOT NULL,
        digest bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      ALTER TABLE audit_log ADD COLUMN actor text;
      GRANT USAGE ON SCHEMA public TO ${PLATFORM_ROLE};
      GRANT SELECT ON tenants, tenant_entitlement_overrides TO ${PLATFORM_ROLE};
      GRANT SELECT ON ${READABLE.join(', ')} TO ${PLATFORM_ROLE};
    `);
    for (const table of READABLE) {
      await q.query(
        `CREATE POLICY ${table}_platform_read ON ${table} FOR SELECT TO ${PLATFORM_ROLE} USING (true)`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of READABLE) {
      await q.query(`DROP POLICY ${table}_platform_read ON ${table}`);
    }
    await q.query(`
      REVOKE ALL ON ${READABLE.join(', ')}, tenants, tenant_entitlement_overrides
        FROM ${PLATFORM_ROLE};
      REVOKE USAGE ON SCHEMA public FROM ${PLATFORM_ROLE};
      ALTER TABLE audit_log DROP COLUMN actor;
      DROP TABLE platform_keys;
    `);
  }
}
