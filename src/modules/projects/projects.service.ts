import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { legacyStatement } from '../../common/database/legacy-statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import {
  type AppError,
  NotFoundError,
  ValidationFailedError,
} from '../../common/http/app-error.js';
import { JsonText } from '../../common/http/json-text.js';
import { Cursor, type CursorPage } from '../../common/pagination/cursor.js';
import {
  cursorPageOf,
  childPageSql,
  firstKey,
  keysetAfter,
  keysetPageSql,
  type KeysetPageRow,
  nextCursorOf,
} from '../../common/pagination/keyset-page.js';
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
  page: { limit: number; offset: number | null; total: number; next_cursor: string | null };
}

export interface ProjectPageRequest {
  limit: number;
  offset: number;
  cursor?: string;
}

export interface NewProjectFile {
  name: string;
  media_type: string;
  size_bytes: number;
  sha256?: string;
  storage_location: string;
}

const PROJECT_ITEM = jsonObjectText({
  projectId: v.integer('r.id'),
  name: v.text('r.name'),
  description: v.text('r.description'),
  status: v.text('r.status'),
  created_at: v.timestamp('r.created_at'),
  updated_at: v.timestamp('r.updated_at'),
});

/**
 * A page of projects and the tenant's total in one statement (one snapshot), JSON built there.
 * The page's ids come from the index alone (an index-only scan, also through a deep offset); only
 * the page's own rows are read from the table. The total is the sum of the tenant's
 * `project_counts` rows (migration 1764002400000), kept by triggers in the same transaction as
 * every insert and delete: its cost does not grow with the tenant.
 * $1 tenant, $2 limit, $3 the key after which the page starts, $4 offset.
 */
const PROJECT_PAGE_SQL = `
  SELECT page.data, page.last_key, page.more,
         (SELECT COALESCE(sum(c.total), 0) FROM project_counts c WHERE c.tenant_id = $1) AS total
    FROM (${keysetPageSql({
      rows: `SELECT p.*, p.id AS k
               FROM (SELECT id FROM projects
                      WHERE tenant_id = $1 AND ${keysetAfter('id', 'ASC', '$3::bigint')}
                      ORDER BY id LIMIT $2::int + 1 OFFSET $4::int) ids
               JOIN projects p ON p.id = ids.id
              WHERE p.tenant_id = $1`,
      item: PROJECT_ITEM,
      order: 'ASC',
      limit: '$2::int',
    })}) page`;

const FILE_ITEM = jsonObjectText({
  fileId: v.integer('r.id'),
  name: v.text('r.name'),
  media_type: v.text('r.media_type'),
  size_bytes: v.integer('r.size_bytes'),
  sha256: v.text('r.sha256'),
  created_at: v.timestamp('r.created_at'),
  updated_at: v.timestamp('r.updated_at'),
});

/**
 * A page of a project's file metadata, and whether the project is the tenant's, in one statement.
 * The storage location is never selected. $1 tenant, $2 project, $3 after key, $4 limit.
 */
const FILE_PAGE_SQL = childPageSql({
  parentFound: 'EXISTS (SELECT 1 FROM projects WHERE tenant_id = $1 AND id = $2)',
  table: 'project_files',
  alias: 'f',
  parentColumn: 'project_id',
  columns: 'f.id, f.name, f.media_type, f.size_bytes, f.sha256, f.created_at, f.updated_at',
  item: FILE_ITEM,
});

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

  /**
   * GET /projects: by `offset` (SPEC.md) or, for deep walks, by `cursor` (keyset: the last page of
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
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<ProjectView> & { total: string }>(PROJECT_PAGE_SQL, [
        tenantId,
        limit,
        after,
        offset,
      ]),
    );
    const row = rows[0];
    const page: ProjectPage['page'] = {
      limit,
      offset: cursor === undefined ? offset : null,
      total: Number(row?.total ?? 0),
      next_cursor: nextCursorOf(row, identity),
    };
    return new JsonText(`{"data":${row?.data ?? '[]'},"page":${JSON.stringify(page)}}`);
  }

  /** 400 `project_not_found` for an unknown or foreign project, as SPEC.md says. */
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
    const identity = { tenantId, list: 'project.files', scope: [projectId] };
    const after = Cursor.decode(identity, page.cursor)?.[0] ?? firstKey('ASC');
    const rows = await this.tx.readOnce(
      tenantId,
      legacyStatement<KeysetPageRow<ProjectFileView> & { found: boolean }>(FILE_PAGE_SQL, [
        tenantId,
        projectId,
        after,
        page.limit,
      ]),
    );
    if (!rows[0]?.found) throw new ProjectNotFoundError();
    return cursorPageOf(rows[0], identity);
  }

  /**
   * For another context's one-statement reads (a project's documents): an SQL expression, true
   * when the project is the tenant's. `tenant` and `project` are its placeholders.
   */
  projectExistsSql(tenant: string, project: string): string {
    return `EXISTS (SELECT 1 FROM projects WHERE tenant_id = ${tenant} AND id = ${project})`;
  }

  /** What the project routes answer for an unknown or foreign project (400, as SPEC.md says). */
  projectNotFound(): AppError {
    return new ProjectNotFoundError();
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
