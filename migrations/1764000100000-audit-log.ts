import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Append-only audit trail: a trigger refuses UPDATE, DELETE and TRUNCATE for every role, the
 * owner included, so a record once written cannot be altered through the database.
 */
export class AuditLog1764000100000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        tenant_id int REFERENCES tenants (id),
        credential_ref text,
        action text NOT NULL,
        target text,
        outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
        detail text,
        ip text,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX audit_log_tenant ON audit_log (tenant_id, id DESC);

      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only';
      END $$;
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
      CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

      ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
      ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
      CREATE POLICY audit_log_tenant ON audit_log TO grc_app
        USING (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::int)
        WITH CHECK (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::int);
      CREATE POLICY audit_log_owner ON audit_log TO CURRENT_USER USING (true) WITH CHECK (true);
      GRANT SELECT, INSERT ON audit_log TO grc_app;
      GRANT USAGE ON SEQUENCE audit_log_id_seq TO grc_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log; DROP FUNCTION audit_log_append_only();`);
  }
}
