import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from '../src/common/database/schema-constants.js';

/**
 * Tables holding one tenant's data. Each gets `FORCE ROW LEVEL SECURITY` and two policies: the
 * application role sees only the tenant in `app.tenant_id`; the owner (migrations, the delivery
 * worker, the lock sweeper, the admin CLI, credential look-ups before the tenant is known) sees all.
 */
export const TENANT_TABLES = [
  'api_clients',
  'access_tokens',
  'personal_access_tokens',
  'projects',
  'project_files',
  'documents',
  'document_versions',
  'external_revisions',
  'document_locks',
  'idempotency_keys',
  'events',
  'webhooks',
  'webhook_deliveries',
  'webhook_delivery_attempts',
];

export class InitialSchema1764000000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        CREATE ROLE ${APP_ROLE} NOLOGIN NOBYPASSRLS;
      EXCEPTION WHEN duplicate_object THEN NULL; END $$;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user);
      EXCEPTION WHEN others THEN NULL; END $$;
    `);

    await q.query(`
      CREATE TABLE tenants (
        id serial PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        plan text NOT NULL CHECK (plan IN ('starter', 'professional', 'enterprise')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE tenant_entitlement_overrides (
        tenant_id int NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        entitlement text NOT NULL,
        granted boolean NOT NULL,
        PRIMARY KEY (tenant_id, entitlement)
      );

      CREATE TABLE api_clients (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        client_id text NOT NULL UNIQUE,
        name text NOT NULL,
        secret_digest bytea NOT NULL,
        scopes text[] NOT NULL,
        allowed_ips text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX api_clients_tenant ON api_clients (tenant_id);

      CREATE TABLE access_tokens (
        id bigserial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        api_client_id int NOT NULL REFERENCES api_clients (id),
        token_digest bytea NOT NULL UNIQUE,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX access_tokens_expiry ON access_tokens (expires_at);
      CREATE INDEX access_tokens_client ON access_tokens (api_client_id);

      CREATE TABLE personal_access_tokens (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        name text NOT NULL,
        token_digest bytea NOT NULL UNIQUE,
        scopes text[] NOT NULL,
        allowed_ips text[] NOT NULL DEFAULT '{}',
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX personal_access_tokens_tenant ON personal_access_tokens (tenant_id);

      CREATE TABLE projects (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX projects_tenant ON projects (tenant_id, id);

      CREATE TABLE project_files (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        project_id int NOT NULL REFERENCES projects (id),
        name text NOT NULL,
        media_type text NOT NULL,
        size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
        sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        storage_location text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX project_files_project ON project_files (project_id, id);

      CREATE TABLE documents (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        project_id int NOT NULL REFERENCES projects (id),
        title text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        current_version_id int,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX documents_project ON documents (project_id, id);

      CREATE TABLE document_versions (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        document_id int NOT NULL REFERENCES documents (id),
        number int NOT NULL CHECK (number >= 1),
        content jsonb NOT NULL,
        content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
        source text NOT NULL CHECK (source IN ('platform', 'external_revision')),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (document_id, number)
      );
      ALTER TABLE documents ADD CONSTRAINT documents_current_version
        FOREIGN KEY (current_version_id) REFERENCES document_versions (id)
        DEFERRABLE INITIALLY DEFERRED;

      CREATE TABLE external_revisions (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        document_id int NOT NULL REFERENCES documents (id),
        base_version_id int NOT NULL REFERENCES document_versions (id),
        status text NOT NULL DEFAULT 'staged'
          CHECK (status IN ('staged', 'accepted', 'rejected', 'superseded')),
        content jsonb NOT NULL,
        content_hash text NOT NULL,
        html text,
        source_reference text CHECK (length(source_reference) <= 500),
        credential_ref text NOT NULL,
        decided_at timestamptz,
        decided_by text,
        decision_note text,
        resulting_version_id int REFERENCES document_versions (id),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX external_revisions_document ON external_revisions (document_id, id);
      CREATE INDEX external_revisions_staged ON external_revisions (document_id)
        WHERE status = 'staged';

      CREATE TABLE document_locks (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        document_id int NOT NULL REFERENCES documents (id),
        token_digest bytea NOT NULL UNIQUE,
        credential_ref text NOT NULL,
        expires_at timestamptz NOT NULL,
        released_at timestamptz,
        release_reason text CHECK (release_reason IN ('checked_in', 'expired')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- at most one unreleased lock per document: the database, not process memory, picks the
      -- winner of concurrent checkouts, across any number of replicas
      CREATE UNIQUE INDEX document_locks_one_open ON document_locks (document_id)
        WHERE released_at IS NULL;
      CREATE INDEX document_locks_expiry ON document_locks (expires_at)
        WHERE released_at IS NULL;

      CREATE TABLE idempotency_keys (
        tenant_id int NOT NULL REFERENCES tenants (id),
        credential_ref text NOT NULL,
        route text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        request_hash text NOT NULL,
        response_status int NOT NULL,
        response_body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, credential_ref, route, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

      CREATE TABLE events (
        id bigserial PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        tenant_id int NOT NULL REFERENCES tenants (id),
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX events_tenant ON events (tenant_id, id);

      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        endpoint_url text NOT NULL,
        events text[] NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'revoked')),
        secret_sealed bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhooks_tenant ON webhooks (tenant_id, id);

      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        webhook_id int NOT NULL REFERENCES webhooks (id),
        event_id bigint NOT NULL REFERENCES events (id),
        status text NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued', 'sending', 'succeeded', 'retry', 'failed', 'cancelled')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_expires_at timestamptz,
        last_attempt_at timestamptz,
        last_response_status int,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
        WHERE status IN ('queued', 'retry');
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_expires_at)
        WHERE status = 'sending';
      CREATE INDEX webhook_deliveries_tenant ON webhook_deliveries (tenant_id, id DESC);
      CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id)
        WHERE status IN ('queued', 'retry', 'sending');

      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        tenant_id int NOT NULL REFERENCES tenants (id),
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id),
        attempted_at timestamptz NOT NULL DEFAULT now(),
        response_status int,
        error text,
        duration_ms int NOT NULL
      );
      CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id);
    `);

    for (const table of TENANT_TABLES) {
      await q.query(`
        ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
        ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
        CREATE POLICY ${table}_tenant ON ${table} TO ${APP_ROLE}
          USING (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::int)
          WITH CHECK (tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::int);
        CREATE POLICY ${table}_owner ON ${table} TO CURRENT_USER USING (true) WITH CHECK (true);
      `);
    }
    await q.query(`
      GRANT USAGE ON SCHEMA public TO ${APP_ROLE};
      GRANT SELECT ON tenants, tenant_entitlement_overrides TO ${APP_ROLE};
      GRANT SELECT, INSERT, UPDATE, DELETE ON ${TENANT_TABLES.join(', ')} TO ${APP_ROLE};
      GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE};
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE webhook_delivery_attempts, webhook_deliveries, webhooks, events,
        idempotency_keys, document_locks, external_revisions, documents, document_versions,
        project_files, projects, personal_access_tokens, access_tokens, api_clients,
        tenant_entitlement_overrides, tenants CASCADE;
    `);
  }
}
