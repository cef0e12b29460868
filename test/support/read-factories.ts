import type { INestApplication } from '@nestjs/common';
import { TenantTransactions } from '../../src/common/database/tenant-transactions.js';
import { DocumentsService } from '../../src/modules/documents/documents.service.js';
import {
  type NewProjectFile,
  ProjectsService,
} from '../../src/modules/projects/projects.service.js';
import { rememberSecret } from './secrets.js';

let counter = 0;

export async function createProject(
  app: INestApplication,
  tenantId: number,
  options: { name?: string; description?: string } = {},
): Promise<number> {
  counter += 1;
  const tx = app.get(TenantTransactions);
  const projects = app.get(ProjectsService);
  const { projectId } = await tx.run(tenantId, () =>
    projects.createProject(tenantId, {
      name: options.name ?? `Project ${counter}`,
      description: options.description,
    }),
  );
  return projectId;
}

export async function addProjectFile(
  app: INestApplication,
  tenantId: number,
  projectId: number,
  file: Partial<NewProjectFile> = {},
): Promise<number> {
  counter += 1;
  const tx = app.get(TenantTransactions);
  const projects = app.get(ProjectsService);
  rememberSecret(file.storage_location ?? `s3://test-bucket/files/${counter}`);
  const { fileId } = await tx.run(tenantId, () =>
    projects.addFile(tenantId, projectId, {
      name: file.name ?? `file-${counter}.pdf`,
      media_type: file.media_type ?? 'application/pdf',
      size_bytes: file.size_bytes ?? 1234,
      sha256: file.sha256,
      storage_location: file.storage_location ?? `s3://test-bucket/files/${counter}`,
    }),
  );
  return fileId;
}

export interface TestDocument {
  documentId: number;
  /** Version ids in ascending number (the last is current). */
  versionIds: number[];
}

/** A document whose versions hold `contents` in order (at least one). */
export async function createDocument(
  app: INestApplication,
  tenantId: number,
  projectId: number,
  options: { title?: string; contents?: Array<Record<string, unknown>>; versions?: number } = {},
): Promise<TestDocument> {
  counter += 1;
  const contents =
    options.contents ??
    Array.from({ length: options.versions ?? 1 }, (_, i) => ({
      title: `Policy ${counter}`,
      revision: i + 1,
    }));
  const [first, ...rest] = contents;
  if (!first) throw new Error('a document needs at least one version');
  const tx = app.get(TenantTransactions);
  const documents = app.get(DocumentsService);
  return tx.run(tenantId, async () => {
    const { documentId, versionId } = await documents.createDocument(
      tenantId,
      projectId,
      options.title ?? `Document ${counter}`,
      first,
    );
    const versionIds = [versionId];
    for (const content of rest) {
      versionIds.push(
        (await documents.createVersion(tenantId, documentId, content, 'platform')).versionId,
      );
    }
    return { documentId, versionIds };
  });
}
