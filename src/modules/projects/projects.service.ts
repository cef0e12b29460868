import { Injectable } from '@nestjs/common';
import type { Sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import {
  type AppError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import {
  childListPage,
  firstKey,
  nextCursorOf,
  pageArray,
} from '../../common/pagination/keyset-page.js';
import type { ProjectStatus } from './entities/project.entity.js';
import { ProjectNotFoundError } from './projects.errors.js';
import type {
  ProjectView,
  ProjectFileView,
  PlatformProjectView,
  PlatformFileView,
  Upserted,
  ProjectPage,
  ProjectPageRequest,
  NewProjectFile,
} from './projects.views.js';
import {
  type FileUpsertRow,
  type ProjectRow,
  type ProjectUpsertRow,
  ProjectsRepository,
} from './projects.repository.js';

// other modules reach the views through the service (the boundary rule)
export type * from './projects.views.js';

/** Projects and their file metadata, tenant by tenant. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly repository: ProjectsRepository,
  ) {}

  createProject(
    tenantId: number,
    input: { name: string; description?: string },
  ): Promise<{ projectId: number }> {
    return this.tx.run(tenantId, async () => {
      const project = await this.repository.insertProject(
        tenantId,
        input.name,
        input.description ?? '',
      );
      return { projectId: project.id };
    });
  }

  addFile(tenantId: number, projectId: number, input: NewProjectFile): Promise<{ fileId: number }> {
    return this.tx.run(tenantId, async () => {
      if (!(await this.findProject(tenantId, projectId))) throw new NotFoundError('project');
      const file = await this.repository.insertFile(tenantId, projectId, input);
      return { fileId: file.id };
    });
  }

  /**
   * The project the platform names `externalId`, created or updated (absent description and
   * status keep what is stored). Joins the caller's tenant transaction or opens one.
   */
  upsertProject(
    tenantId: number,
    externalId: string,
    input: { name: string; description?: string; status?: ProjectStatus },
  ): Promise<Upserted<PlatformProjectView>> {
    return this.tx.run(tenantId, async () => {
      const row = await this.repository.upsertProject(tenantId, externalId, input);
      return { created: row.created, view: upsertedProjectView(row) };
    });
  }

  /** Inside a tenant transaction: the id of the project the platform names `externalId`. */
  projectIdByExternalId(tenantId: number, externalId: string): Promise<number | undefined> {
    return this.repository.projectIdByExternalId(tenantId, externalId);
  }

  /** Inside a tenant transaction: the ids of the projects the platform names `externalIds`. */
  projectIdsByExternalIds(
    tenantId: number,
    externalIds: readonly string[],
  ): Promise<Map<string, number>> {
    if (externalIds.length === 0) return Promise.resolve(new Map<string, number>());
    return this.repository.projectIdsByExternalIds(tenantId, externalIds);
  }

  /**
   * The project's file metadata the platform names `externalId`, created or replaced; 404
   * `not_found` for an unknown or foreign project. Joins the caller's transaction or opens one.
   */
  upsertFile(
    tenantId: number,
    projectId: number,
    externalId: string,
    input: NewProjectFile,
  ): Promise<Upserted<PlatformFileView>> {
    return this.tx.run(tenantId, async () => {
      if (!(await this.repository.findProject(tenantId, projectId))) {
        throw new NotFoundError('project');
      }
      const row = await this.repository.upsertFile(tenantId, projectId, externalId, input);
      return { created: row.created, view: upsertedFileView(row) };
    });
  }

  /** Deletes the project's file metadata the platform names `externalId`; 404 when there is none. */
  deleteFile(tenantId: number, projectId: number, externalId: string): Promise<void> {
    return this.tx.run(tenantId, async () => {
      if (!(await this.repository.deleteFile(tenantId, projectId, externalId))) {
        throw new NotFoundError('file');
      }
    });
  }

  /**
   * GET /projects: by `offset` (as documented) or, for deep walks, by `cursor` (keyset: the last page of
   * a walk costs what the first does). Either way `page.next_cursor` continues after this page.
   * One round trip: the page and the total in one statement.
   */
  async listProjects(
    tenantId: number,
    request: ProjectPageRequest,
  ): Promise<JsonText<ProjectPage>> {
    const { limit, offset, cursor } = request;
    if (cursor !== undefined && offset !== 0) {
      throw new ValidationFailedError([
        { field: 'offset', message: 'cannot be combined with cursor (a cursor is a position)' },
      ]);
    }
    const identity = { tenantId, list: 'projects' };
    const after = Cursor.decode(identity, cursor)?.[0] ?? firstKey('ASC');
    const row = await this.repository.projectPage(tenantId, { limit, after, offset });
    const page: ProjectPage['page'] = {
      limit,
      offset: cursor === undefined ? offset : null,
      total: Number(row?.total ?? 0),
      next_cursor: nextCursorOf(row, identity),
    };
    return new JsonText('{"data":', ...pageArray(row), `,"page":${JSON.stringify(page)}}`);
  }

  /** 400 `project_not_found` for an unknown or foreign project, as documented (docs/integrators/errors.md). */
  getProject(tenantId: number, projectId: number): Promise<ProjectView> {
    return this.tx.run(tenantId, () => this.requireProject(tenantId, projectId));
  }

  /**
   * GET /projects/{projectId}/files, ascending fileId, one page; 400 `project_not_found` for an
   * unknown or foreign project. One statement in one round trip.
   */
  async listFiles(
    tenantId: number,
    projectId: number,
    page: { limit: number; cursor?: string },
  ): Promise<JsonText<CursorPage<ProjectFileView>>> {
    return childListPage(
      { tenantId, list: 'project.files', scope: [projectId] },
      page.cursor,
      (after) => this.repository.filePage(tenantId, projectId, { limit: page.limit, after }),
      () => new ProjectNotFoundError(),
    );
  }

  /**
   * For another context's one-statement reads (a project's documents): a boolean SQL expression,
   * true when the project is the tenant's.
   */
  projectExists(tenantId: number, projectId: number): Sql {
    return this.repository.projectExists(tenantId, projectId);
  }

  /** What the project routes answer for an unknown or foreign project (400: docs/integrators/errors.md). */
  projectNotFound(): AppError {
    return new ProjectNotFoundError();
  }

  /** Inside a tenant transaction: the project, or `null` when unknown or of another tenant. */
  async findProject(tenantId: number, projectId: number): Promise<ProjectView | null> {
    const row = await this.repository.findProject(tenantId, projectId);
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
      const tenantId = await this.repository.tenantOfProject(projectId);
      if (tenantId === undefined) throw new NotFoundError('project');
      return tenantId;
    });
  }
}

function projectView(p: ProjectRow): ProjectView {
  return {
    projectId: p.id,
    name: p.name,
    description: p.description,
    status: p.status,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** The platform's view: the project's own, with the platform's id of it after ours. */
function upsertedProjectView(r: ProjectUpsertRow): PlatformProjectView {
  const { projectId, ...rest } = projectView(r);
  return { projectId, external_id: r.externalId, ...rest };
}

function upsertedFileView(r: FileUpsertRow): PlatformFileView {
  return {
    fileId: r.id,
    projectId: r.project_id,
    external_id: r.external_id,
    name: r.name,
    media_type: r.media_type,
    size_bytes: Number(r.size_bytes),
    sha256: r.sha256,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
