import type { ProjectStatus } from './entities/project.entity.js';

/** What the projects context answers and takes: shared by its service and its repository. */

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

/** A project as the platform API answers it: with the platform's own id of it. */
export interface PlatformProjectView extends ProjectView {
  external_id: string;
}

/** File metadata as the platform API answers it; the storage location is not a member here either. */
export interface PlatformFileView extends ProjectFileView {
  projectId: number;
  external_id: string;
}

/** What an upsert did, and the row as it is now. */
export interface Upserted<V> {
  created: boolean;
  view: V;
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
