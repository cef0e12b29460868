import { isExternalId } from '../../common/database/external-id.js';
import { ValidationFailedError } from '../../common/http/app-error.js';
import type { Upserted } from '../projects/projects.service.js';
import type {
  PutPlatformFileRequest,
  PutPlatformProjectRequest,
} from './platform/dto/content.request.js';

/** A platform view with the tenant the row belongs to (the platform acts across tenants). */
export type OfTenant<V> = V & { tenant_id: number };

export function ofTenant<V>(tenantId: number, u: Upserted<V>): Upserted<OfTenant<V>> {
  return { created: u.created, view: { ...u.view, tenant_id: tenantId } };
}

/** 400 `validation_failed` unless the platform's id is 1 to 200 of `A-Z a-z 0-9 . _ : -`. */
export function requireExternalId(value: string, field = 'externalId'): void {
  if (!isExternalId(value)) {
    throw new ValidationFailedError([
      { field, message: 'must be 1 to 200 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-"' },
    ]);
  }
}

export function projectInput(input: PutPlatformProjectRequest): {
  name: string;
  description?: string;
  status?: 'active' | 'archived';
} {
  return {
    name: input.name,
    description: input.description ?? undefined,
    status: input.status ?? undefined,
  };
}

export function fileInput(input: PutPlatformFileRequest) {
  return {
    name: input.name,
    media_type: input.media_type,
    size_bytes: input.size_bytes,
    sha256: input.sha256?.toLowerCase() ?? undefined,
    storage_location: input.storage_path,
  };
}
