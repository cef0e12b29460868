import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DocumentsService } from '../../src/modules/documents/documents.service.js';
import { ProjectsService } from '../../src/modules/projects/projects.service.js';
import { call } from './http.js';
import type { TestCaller } from './factories.js';

let counter = 0;

/** A project with one document (version 1) in the tenant. */
export async function createLockableDocument(
  app: INestApplication,
  tenantId: number,
): Promise<{ projectId: number; documentId: number; versionId: number }> {
  counter += 1;
  const { projectId } = await app
    .get(ProjectsService)
    .createProject(tenantId, { name: `Lock project ${counter}` });
  const created = await app
    .get(DocumentsService)
    .createDocument(tenantId, projectId, `Lock document ${counter}`, { body: `v1 ${counter}` });
  return { projectId, ...created };
}

/** Checks a document out through the API and returns the 201 body. */
export async function checkout(
  baseUrl: string,
  caller: TestCaller,
  documentId: number,
  ttlMinutes?: number,
): Promise<{ documentId: number; lock_token: string; expires_at: string }> {
  const res = await call(baseUrl, 'POST', `/documents/${documentId}/checkout`, {
    auth: caller.auth,
    body: ttlMinutes === undefined ? {} : { ttl_minutes: ttlMinutes },
  });
  if (res.status !== 201) throw new Error(`checkout failed: ${res.status} ${res.text}`);
  return res.body as { documentId: number; lock_token: string; expires_at: string };
}

/** Moves the document's open lock into the past, as if its ttl had run out. */
export async function expireOpenLock(app: INestApplication, documentId: number): Promise<void> {
  await app.get(DataSource).query(
    `UPDATE document_locks SET expires_at = now() - interval '1 second'
        WHERE document_id = $1 AND released_at IS NULL`,
    [documentId],
  );
}

export interface StoredEvent {
  type: string;
  payload: { id: string; type: string; tenant_id: number; data: Record<string, unknown> };
}

/** The tenant's events of the given types, oldest first. */
export async function eventsOf(
  app: INestApplication,
  tenantId: number,
  types: readonly string[],
): Promise<StoredEvent[]> {
  return app
    .get(DataSource)
    .query(`SELECT type, payload FROM events WHERE tenant_id = $1 AND type = ANY($2) ORDER BY id`, [
      tenantId,
      types,
    ]);
}
