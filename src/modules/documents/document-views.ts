import { MAX_PAGE_LIMIT } from '../../common/pagination/page-query.js';
import type { VersionSource } from './entities/document-version.entity.js';
import type { DocumentStatus } from './entities/document.entity.js';

/** A document as the contexts that build on it see it: its current version. */
export interface DocumentRef {
  documentId: number;
  projectId: number;
  currentVersionId: number;
  currentContentHash: string;
}

export interface VersionView {
  versionId: number;
  documentId: number;
  number: number;
  content: Record<string, unknown>;
  content_hash: string;
  created_at: string;
}

export interface VersionIndexEntry {
  versionId: number;
  number: number;
  content_hash: string;
  created_at: string;
  source: VersionSource;
}

export interface DocumentSummary {
  documentId: number;
  projectId: number;
  title: string;
  status: DocumentStatus;
  current_version_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentView extends DocumentSummary {
  versions: VersionIndexEntry[];
  versions_next_cursor: string | null;
}

/** Entries of the version index in `GET /documents/{documentId}`; the rest through `/versions`. */
export const VERSION_INDEX_LIMIT = MAX_PAGE_LIMIT;
