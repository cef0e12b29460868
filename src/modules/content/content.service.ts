import { Injectable } from '@nestjs/common';
import { parseIfMatch } from '../../common/http/if-match.js';
import type { FreeJsonValue } from '../../common/http/prepared-json.js';
import {
  DocumentsPlatformService,
  type PlatformDocumentView,
  type PlatformVersionView,
} from '../documents/documents-platform.service.js';
import {
  type PlatformFileView,
  type PlatformProjectView,
  ProjectsService,
  type Upserted,
} from '../projects/projects.service.js';
import { TenancyService } from '../tenancy/tenancy.service.js';
import { ContentImportService } from './content-import.service.js';
import type { ImportReport } from './import-batch.js';
import {
  fileInput,
  type OfTenant,
  ofTenant,
  projectInput,
  requireExternalId,
} from './content-inputs.js';
import type {
  PutPlatformDocumentRequest,
  PutPlatformFileRequest,
  PutPlatformProjectRequest,
} from './platform/dto/content.request.js';

export { IMPORT_ERRORS_KEPT, type ImportReport } from './import-batch.js';
export { type OfTenant, requireExternalId } from './content-inputs.js';

/**
 * The host platform's content, keyed by its own ids (`external_id`): upserts of projects,
 * documents and file metadata, versions from the platform's own editing, and the NDJSON import
 * that does the same upserts in bulk. The rules live in the projects and documents services; this
 * one resolves the platform's ids and tenants, and streams the import.
 */
@Injectable()
export class ContentService {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsPlatformService,
    private readonly imports: ContentImportService,
  ) {}

  /** The tenant of a project (any tenant's: the platform acts on all); 404 when there is none. */
  tenantOfProject(projectId: number): Promise<number> {
    return this.projects.tenantOfProject(projectId);
  }

  /** The tenant of a document (any tenant's); 404 when there is none. */
  tenantOfDocument(documentId: number): Promise<number> {
    return this.documents.tenantOfDocument(documentId);
  }

  /** PUT /tenants/{tenantId}/projects/{externalId}; 404 for an unknown tenant. */
  async putProject(
    tenantId: number,
    externalId: string,
    input: PutPlatformProjectRequest,
  ): Promise<Upserted<OfTenant<PlatformProjectView>>> {
    requireExternalId(externalId);
    await this.requireTenant(tenantId);
    return ofTenant(
      tenantId,
      await this.projects.upsertProject(tenantId, externalId, projectInput(input)),
    );
  }

  /** PUT /projects/{projectId}/documents/{externalId}; 404 for an unknown project. */
  async putDocument(
    projectId: number,
    externalId: string,
    input: PutPlatformDocumentRequest,
  ): Promise<Upserted<OfTenant<PlatformDocumentView>>> {
    requireExternalId(externalId);
    const tenantId = await this.projects.tenantOfProject(projectId);
    return ofTenant(
      tenantId,
      await this.documents.putPlatformDocument(tenantId, projectId, externalId, input),
    );
  }

  /**
   * POST /documents/{documentId}/versions: a version made by the platform's editing; 412 when
   * `If-Match` names another content hash than the current version's.
   */
  async createVersion(
    documentId: number,
    content: FreeJsonValue<Record<string, unknown>>,
    ifMatchHeader: string | undefined,
  ): Promise<OfTenant<PlatformVersionView>> {
    const ifMatch = parseIfMatch(ifMatchHeader);
    const tenantId = await this.documents.tenantOfDocument(documentId);
    const version = await this.documents.createPlatformVersion(
      tenantId,
      documentId,
      content,
      ifMatch,
    );
    return { ...version, tenant_id: tenantId };
  }

  /** PUT /projects/{projectId}/files/{externalId}; 404 for an unknown project. */
  async putFile(
    projectId: number,
    externalId: string,
    input: PutPlatformFileRequest,
  ): Promise<Upserted<OfTenant<PlatformFileView>>> {
    requireExternalId(externalId);
    const tenantId = await this.projects.tenantOfProject(projectId);
    return ofTenant(
      tenantId,
      await this.projects.upsertFile(tenantId, projectId, externalId, fileInput(input)),
    );
  }

  /** DELETE /projects/{projectId}/files/{externalId}; 404 when the project has no such file. */
  async deleteFile(projectId: number, externalId: string): Promise<void> {
    requireExternalId(externalId);
    const tenantId = await this.projects.tenantOfProject(projectId);
    await this.projects.deleteFile(tenantId, projectId, externalId);
  }

  /** POST /tenants/{tenantId}/import (ContentImportService): 404 first for an unknown tenant. */
  async importNdjson(
    tenantId: number,
    body: AsyncIterable<Buffer | string>,
  ): Promise<ImportReport> {
    await this.requireTenant(tenantId);
    return this.imports.importNdjson(tenantId, body);
  }

  private async requireTenant(tenantId: number): Promise<void> {
    await this.tenancy.view(tenantId);
  }
}
