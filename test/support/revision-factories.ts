import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TenantTransactions } from '../../src/common/database/tenant-transactions.js';
import { DocumentsService } from '../../src/modules/documents/documents.service.js';
import type { Plan } from '../../src/modules/tenancy/plans.js';
import { createCaller, type TestCaller } from './factories.js';
import { type ApiResponse, call } from './http.js';
import { createDocument, createProject } from './read-factories.js';

export interface RevisionFixture {
  caller: TestCaller;
  projectId: number;
  documentId: number;
  /** Version ids in ascending number; the last is current. */
  versionIds: number[];
}

/** A caller (every scope) whose tenant has a project and a document with `versions` versions. */
export async function createRevisionFixture(
  app: INestApplication,
  options: { plan?: Plan; versions?: number; tenantId?: number } = {},
): Promise<RevisionFixture> {
  const caller = await createCaller(app, {
    plan: options.plan ?? 'professional',
    tenantId: options.tenantId,
  });
  const projectId = await createProject(app, caller.tenantId);
  const { documentId, versionIds } = await createDocument(app, caller.tenantId, projectId, {
    versions: options.versions ?? 1,
  });
  return { caller, projectId, documentId, versionIds };
}

/** The current content hash of a document (what `If-Match` carries). */
export async function currentHash(
  app: INestApplication,
  tenantId: number,
  documentId: number,
): Promise<string> {
  const tx = app.get(TenantTransactions);
  const ref = await tx.run(tenantId, () =>
    app.get(DocumentsService).requireDocument(tenantId, documentId),
  );
  return ref.currentContentHash;
}

/** A new platform version of the document (as the platform's editor would create one). */
export async function createPlatformVersion(
  app: INestApplication,
  tenantId: number,
  documentId: number,
  content: Record<string, unknown> = { edited: Date.now() },
): Promise<number> {
  const tx = app.get(TenantTransactions);
  const version = await tx.run(tenantId, () =>
    app.get(DocumentsService).createVersion(tenantId, documentId, content, 'platform'),
  );
  return version.versionId;
}

export function stage(
  baseUrl: string,
  auth: string,
  documentId: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return call(baseUrl, 'POST', `/documents/${documentId}/external-revisions`, {
    auth,
    body,
    headers,
  });
}

export interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The events of a tenant in insertion order, optionally of one type (read as the owner). */
export async function eventsOf(
  app: INestApplication,
  tenantId: number,
  type?: string,
): Promise<StoredEvent[]> {
  const rows: Array<{ type: string; payload: { data: Record<string, unknown> } }> = await app
    .get(DataSource)
    .query(
      `SELECT type, payload FROM events WHERE tenant_id = $1 AND ($2::text IS NULL OR type = $2)
        ORDER BY id`,
      [tenantId, type ?? null],
    );
  return rows.map((r) => ({ type: r.type, data: r.payload.data }));
}

export interface RevisionRow {
  id: number;
  document_id: number;
  base_version_id: number;
  status: string;
  decided_by: string | null;
  decision_note: string | null;
  decided_at: Date | null;
  resulting_version_id: number | null;
  credential_ref: string;
}

export async function revisionRows(
  app: INestApplication,
  documentId: number,
): Promise<RevisionRow[]> {
  return app.get(DataSource).query(
    `SELECT id, document_id, base_version_id, status, decided_by, decision_note, decided_at,
              resulting_version_id, credential_ref
         FROM external_revisions WHERE document_id = $1 ORDER BY id`,
    [documentId],
  );
}
