import { Injectable } from '@nestjs/common';
import { isoTimestamp } from '../../common/database/sql-json.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { NotFoundError } from '../../common/http/app-error.js';
import { ProjectFile } from './entities/project-file.entity.js';
import { Project, type ProjectStatus } from './entities/project.entity.js';
import { ProjectNotFoundError } from './projects.errors.js';

export interface ProjectView {
  projectId: number;
  name: string;
  description: string;
  status: ProjectStatus;
  created_at: string;
  updated_at: string;
}

/** File metadata as the API shows it: the storage location is deliberately not a member. */
export interface ProjectFileView {
  fileId: number;
  name: string;
  media_type: string;
  size_bytes: number;
  sha256: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectPage {
  data: ProjectView[];
  page: { limit: number; offset: number; total: number };
}

export interface NewProjectFile {
  name: string;
  media_type: string;
  size_bytes: number;
  sha256?: string;
  storage_location: string;
}

const PROJECT_PAGE_SQL = `
  SELECT COALESCE((
      SELECT json_agg(json_build_object(
               'projectId', p.id, 'name', p.name, 'description', p.description,
               'status', p.status, 'created_at', ${isoTimestamp('p.created_at')},
               'updated_at', ${isoTimestamp('p.updated_at')}) ORDER BY p.id)
        FROM (SELECT * FROM projects WHERE tenant_id = $1 ORDER BY id LIMIT $2 OFFSET $3) p
    ), '[]'::json) AS data,
    (SELECT count(*) FROM projects WHERE tenant_id = $1) AS total`;

/** Projects and their file metadata, tenant by tenant. */
@Injectable()
export class ProjectsService {
  constructor(private readonly tx: TenantTransactions) {}

  createProject(
    tenantId: number,
    input: { name: string; description?: string },
  ): Promise<{ projectId: number }> {
    return this.tx.run(tenantId, async () => {
      const project = await this.tx.repo(Project).save({
        tenantId,
        name: input.name,
        description: input.description ?? '',
        status: 'active' as const,
      });
      return { projectId: project.id };
    });
  }

  addFile(tenantId: number, projectId: number, input: NewProjectFile): Promise<{ fileId: number }> {
    return this.tx.run(tenantId, async () => {
      if (!(await this.findProject(tenantId, projectId))) throw new NotFoundError('project');
      const file = await this.tx.repo(ProjectFile).save({
        tenantId,
        projectId,
        name: input.name,
        mediaType: input.media_type,
        sizeBytes: input.size_bytes,
        sha256: input.sha256 ?? null,
        storageLocation: input.storage_location,
      });
      return { fileId: file.id };
    });
  }

  /** One round trip: the page and the total in one statement (one snapshot), JSON built there. */
  async listProjects(tenantId: number, limit: number, offset: number): Promise<ProjectPage> {
    const rows = await this.tx.readOnce<{ data: ProjectView[]; total: string }>(
      tenantId,
      PROJECT_PAGE_SQL,
      [tenantId, limit, offset],
    );
    const row = rows[0];
    return {
      data: row?.data ?? [],
      page: { limit, offset, total: Number(row?.total ?? 0) },
    };
  }

  /** 400 `project_not_found` for an unknown or foreign project, as SPEC.md says. */
  getProject(tenantId: number, projectId: number): Promise<ProjectView> {
    return this.tx.run(tenantId, () => this.requireProject(tenantId, projectId));
  }

  listFiles(tenantId: number, projectId: number): Promise<ProjectFileView[]> {
    return this.tx.run(tenantId, async () => {
      await this.requireProject(tenantId, projectId);
      const rows = await this.tx
        .repo(ProjectFile)
        .find({ where: { tenantId, projectId }, order: { id: 'ASC' } });
      return rows.map(fileView);
    });
  }

  /** Inside a tenant transaction: the project, or `null` when unknown or of another tenant. */
  async findProject(tenantId: number, projectId: number): Promise<ProjectView | null> {
    const row = await this.tx.repo(Project).findOneBy({ tenantId, id: projectId });
    return row ? projectView(row) : null;
  }

  /** Inside a tenant transaction: the project, else 400 `project_not_found`. */
  async requireProject(tenantId: number, projectId: number): Promise<ProjectView> {
    const project = await this.findProject(tenantId, projectId);
    if (!project) throw new ProjectNotFoundError();
    return project;
  }

  /** The tenant a project belongs to (admin CLI only: owner role, across tenants). */
  tenantOfProject(projectId: number): Promise<number> {
    return this.tx.runAsSystem(async () => {
      const row = await this.tx
        .repo(Project)
        .findOne({ where: { id: projectId }, select: { id: true, tenantId: true } });
      if (!row) throw new NotFoundError('project');
      return row.tenantId;
    });
  }
}

function projectView(p: Project): ProjectView {
  return {
    projectId: p.id,
    name: p.name,
    description: p.description,
    status: p.status,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

function fileView(f: ProjectFile): ProjectFileView {
  return {
    fileId: f.id,
    name: f.name,
    media_type: f.mediaType,
    size_bytes: f.sizeBytes,
    sha256: f.sha256,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}
