import { Injectable } from '@nestjs/common';
import { jsonObjectText, jsonValue as v } from '../../common/database/sql-json.js';
import { fragment, type Sql, sql } from '../../common/database/statement.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { PageReads } from '../../common/database/page-reads.js';
import {
  afterKey,
  type ChildPageRow,
  type ChildPageText,
  childPage,
  type KeysetPageText,
  type PageRow,
  keysetPage,
} from '../../common/pagination/keyset-page.js';
import type { ProjectFile } from './entities/project-file.entity.js';
import type { Project, ProjectStatus } from './entities/project.entity.js';
import type { NewProjectFile, ProjectFileView, ProjectView } from './projects.views.js';

/** A project as its upsert returns it; `created` tells an insert from an update. */
export type ProjectUpsertRow = ProjectRow & { externalId: string; created: boolean };

/** File metadata as its upsert returns it (never the storage location). */
export interface FileUpsertRow {
  id: number;
  project_id: number;
  external_id: string;
  name: string;
  media_type: string;
  size_bytes: string;
  sha256: string | null;
  created_at: Date;
  updated_at: Date;
  created: boolean;
}

/** A project row as the entity names its members (`summary_json` is the page's, never read here). */
export type ProjectRow = Omit<Project, 'summaryJson'>;

/** The columns of `ProjectRow`, as the entity names them. */
const PROJECT_ROW = fragment(`id, tenant_id AS "tenantId", external_id AS "externalId", name,
       description, status, created_at AS "createdAt", updated_at AS "updatedAt"`);

/**
 * The columns of a file row as the entity names them; `size_bytes` as a number, as its transformer
 * reads it. The storage location only where it was just written (an insert's echo).
 */
const FILE_ROW = fragment(`id, tenant_id AS "tenantId", external_id AS "externalId",
       project_id AS "projectId", name, media_type AS "mediaType",
       size_bytes::float8 AS "sizeBytes", sha256, storage_location AS "storageLocation",
       created_at AS "createdAt", updated_at AS "updatedAt"`);

/** What the project page statement answers: the page, and the tenant's total (bigint text). */
type ProjectPageText = KeysetPageText<ProjectView> & { total: string };
export type ProjectPageRow = PageRow<ProjectPageText>;

const FILE_ITEM = jsonObjectText({
  fileId: v.integer('r.id'),
  name: v.text('r.name'),
  media_type: v.text('r.media_type'),
  size_bytes: v.integer('r.size_bytes'),
  sha256: v.text('r.sha256'),
  created_at: v.timestamp('r.created_at'),
  updated_at: v.timestamp('r.updated_at'),
});

/** The only place of the projects context that holds SQL or calls TypeORM. */
@Injectable()
export class ProjectsRepository {
  constructor(
    private readonly tx: TenantTransactions,
    private readonly pages: PageReads,
  ) {}

  /** Inside a tenant transaction: a new active project. */
  async insertProject(tenantId: number, name: string, description: string): Promise<ProjectRow> {
    const [row] = await this.tx.query(sql<ProjectRow>`
      INSERT INTO projects (tenant_id, name, description, status)
      VALUES (${tenantId}, ${name}, ${description}, 'active')
      RETURNING ${PROJECT_ROW}`);
    return row!;
  }

  /** Inside a tenant transaction: a new file's metadata. */
  async insertFile(
    tenantId: number,
    projectId: number,
    input: NewProjectFile,
  ): Promise<ProjectFile> {
    const [row] = await this.tx.query(sql<ProjectFile>`
      INSERT INTO project_files (tenant_id, project_id, name, media_type, size_bytes, sha256,
                                 storage_location)
      VALUES (${tenantId}, ${projectId}, ${input.name}, ${input.media_type}, ${input.size_bytes},
              ${input.sha256 ?? null}, ${input.storage_location})
      RETURNING ${FILE_ROW}`);
    return row!;
  }

  /**
   * Inside a tenant transaction: the project the platform names `externalId`, created or updated
   * in one statement (the partial unique index of migration 1764003300000 is the arbiter, so
   * concurrent upserts of one id cannot both insert). An absent description or status keeps the
   * stored one on update and takes the default on insert. `xmax = 0` holds for a row this
   * statement inserted, not for one it updated.
   */
  async upsertProject(
    tenantId: number,
    externalId: string,
    p: { name: string; description?: string; status?: ProjectStatus },
  ): Promise<ProjectUpsertRow> {
    const description = p.description ?? null;
    const status = p.status ?? null;
    const [row] = await this.tx.query(sql<ProjectUpsertRow>`
      INSERT INTO projects AS p (tenant_id, external_id, name, description, status)
      VALUES (${tenantId}, ${externalId}, ${p.name}, COALESCE(${description}::text, ''),
              COALESCE(${status}::text, 'active'))
      ON CONFLICT (tenant_id, external_id) WHERE external_id IS NOT NULL DO UPDATE
        SET name = EXCLUDED.name,
            description = COALESCE(${description}::text, p.description),
            status = COALESCE(${status}::text, p.status),
            updated_at = now()
      RETURNING ${PROJECT_ROW}, (xmax = 0) AS created`);
    return row!;
  }

  /** Inside a tenant transaction: the id of the project the platform names `externalId`. */
  async projectIdByExternalId(tenantId: number, externalId: string): Promise<number | undefined> {
    const [row] = await this.tx.query(sql<{ id: number }>`
      SELECT id FROM projects WHERE tenant_id = ${tenantId} AND external_id = ${externalId}`);
    return row?.id;
  }

  /** Inside a tenant transaction: the ids of the projects the platform names `externalIds`. */
  async projectIdsByExternalIds(
    tenantId: number,
    externalIds: readonly string[],
  ): Promise<Map<string, number>> {
    const rows = await this.tx.query(sql<{ id: number; external_id: string }>`
      SELECT id, external_id FROM projects
       WHERE tenant_id = ${tenantId} AND external_id = ANY(${externalIds}::text[])`);
    return new Map(rows.map((r) => [r.external_id, r.id]));
  }

  /**
   * Inside a tenant transaction, the project the tenant's: the file metadata the platform names
   * `externalId`, created or replaced in one statement (an absent sha256 is null: the metadata
   * describes the bytes as they are now). A file of another project of the tenant with that id
   * moves to this one: the id names one file of the tenant. The storage location is written, never
   * returned.
   */
  async upsertFile(
    tenantId: number,
    projectId: number,
    externalId: string,
    f: NewProjectFile,
  ): Promise<FileUpsertRow> {
    const [row] = await this.tx.query(sql<FileUpsertRow>`
      INSERT INTO project_files AS f (tenant_id, project_id, external_id, name, media_type,
                                      size_bytes, sha256, storage_location)
      VALUES (${tenantId}, ${projectId}, ${externalId}, ${f.name}, ${f.media_type},
              ${f.size_bytes}, ${f.sha256 ?? null}, ${f.storage_location})
      ON CONFLICT (tenant_id, external_id) WHERE external_id IS NOT NULL DO UPDATE
        SET project_id = EXCLUDED.project_id, name = EXCLUDED.name,
            media_type = EXCLUDED.media_type, size_bytes = EXCLUDED.size_bytes,
            sha256 = EXCLUDED.sha256, storage_location = EXCLUDED.storage_location,
            updated_at = now()
      RETURNING id, project_id, external_id, name, media_type, size_bytes, sha256, created_at,
                updated_at, (xmax = 0) AS created`);
    return row!;
  }

  /** Inside a tenant transaction: deletes the project's file metadata; false when there is none. */
  async deleteFile(tenantId: number, projectId: number, externalId: string): Promise<boolean> {
    const rows = await this.tx.query(sql`
      DELETE FROM project_files
       WHERE tenant_id = ${tenantId} AND project_id = ${projectId} AND external_id = ${externalId}
      RETURNING 1`);
    return rows.length > 0;
  }

  /** Inside a tenant transaction: the project, or null when unknown or of another tenant. */
  async findProject(tenantId: number, projectId: number): Promise<ProjectRow | null> {
    const [row] = await this.tx.query(sql<ProjectRow>`
      SELECT ${PROJECT_ROW} FROM projects WHERE tenant_id = ${tenantId} AND id = ${projectId}`);
    return row ?? null;
  }

  /** Inside a system transaction (owner role, across tenants): the tenant of a project. */
  async tenantOfProject(projectId: number): Promise<number | undefined> {
    const [row] = await this.tx.query(sql<{ tenant_id: number }>`
      SELECT tenant_id FROM projects WHERE id = ${projectId}`);
    return row?.tenant_id;
  }

  /**
   * A page of projects and the tenant's total in one statement (one snapshot), JSON built there,
   * read in one round trip. The page's ids come from the index alone (an index-only scan, also
   * through a deep offset); only the page's own rows are read from the table. The total is the
   * sum of the tenant's `project_counts` rows (migration 1764002400000), kept by triggers in the
   * same transaction as every insert and delete: its cost does not grow with the tenant. Each item
   * is the row's `summary_json`, the `ProjectView` JSON text the projects trigger of migration
   * 1764003100000 keeps at every write: the page only concatenates stored texts.
   */
  async projectPage(
    tenantId: number,
    page: { limit: number; after: number; offset: number },
  ): Promise<ProjectPageRow | undefined> {
    const { limit, after, offset } = page;
    const rows = await this.pages.read(
      tenantId,
      limit,
      sql<ProjectPageText>`
  SELECT page.*,
         (SELECT COALESCE(sum(c.total), 0) FROM project_counts c WHERE c.tenant_id = ${tenantId}) AS total
    FROM (${keysetPage({
      rows: sql`SELECT p.summary_json, p.id AS k
               FROM (SELECT id FROM projects
                      WHERE tenant_id = ${tenantId} AND ${afterKey('id', 'ASC', after)}
                      ORDER BY id LIMIT ${limit}::int + 1 OFFSET ${offset}::int) ids
               JOIN projects p ON p.id = ids.id
              WHERE p.tenant_id = ${tenantId}`,
      item: 'r.summary_json',
      order: 'ASC',
      limit,
    })}) page`,
    );
    return rows[0];
  }

  /**
   * A page of a project's file metadata, and whether the project is the tenant's, in one
   * statement read in one round trip. The storage location is never selected.
   */
  async filePage(
    tenantId: number,
    projectId: number,
    page: { limit: number; after: number },
  ): Promise<ChildPageRow<ProjectFileView> | undefined> {
    const rows = await this.pages.read(
      tenantId,
      page.limit,
      sql<ChildPageText<ProjectFileView>>`${childPage({
        parentFound: this.projectExists(tenantId, projectId),
        table: 'project_files',
        alias: 'f',
        parentColumn: 'project_id',
        columns: 'f.id, f.name, f.media_type, f.size_bytes, f.sha256, f.created_at, f.updated_at',
        item: FILE_ITEM,
        tenantId,
        parentId: projectId,
        ...page,
      })}`,
    );
    return rows[0];
  }

  /** A boolean SQL expression: the project is the tenant's (for another context's statement). */
  projectExists(tenantId: number, projectId: number): Sql {
    return sql`EXISTS (SELECT 1 FROM projects WHERE tenant_id = ${tenantId} AND id = ${projectId})`;
  }
}
