import { Injectable } from '@nestjs/common';
import { digest, isWellFormedToken, mintToken } from '../../common/crypto/tokens.js';
import { NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { PlatformKeysRepository, type PlatformKeyRow } from './platform-keys.repository.js';
import { isPlatformScope, PLATFORM_SCOPES, type PlatformScope } from './platform-scopes.js';

/** Who a platform request comes from. */
export interface PlatformKeyPrincipal {
  keyId: number;
  name: string;
  scopes: ReadonlySet<PlatformScope>;
  /** `credential_generation` as of the look-up that verified the key. */
  generation: number;
}

/** A key as listed: never its secret. */
export interface PlatformKeyView {
  key_id: number;
  name: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

const NAME_MAX = 200;

function view(row: PlatformKeyRow): PlatformKeyView {
  return {
    key_id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/**
 * The host platform's keys: made, listed and revoked by operators (CLI), presented by the platform
 * API's callers. Stored as SHA-256 digests; the key itself is shown once, when made.
 */
@Injectable()
export class PlatformKeysService {
  constructor(private readonly keys: PlatformKeysRepository) {}

  /** Scopes from their space-separated text; every platform scope when `all`. */
  static parseScopes(text: string): PlatformScope[] {
    const scopes = [...new Set(text.split(/\s+/).filter(Boolean))];
    const unknown = scopes.filter((s) => !isPlatformScope(s));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new ValidationFailedError([
        {
          field: 'scopes',
          message: `must be one or more of ${PLATFORM_SCOPES.join(', ')}${
            unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''
          }`,
        },
      ]);
    }
    return scopes as PlatformScope[];
  }

  async create(
    name: string,
    scopes: readonly PlatformScope[],
  ): Promise<PlatformKeyView & { key: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || [...trimmed].length > NAME_MAX) {
      throw new ValidationFailedError([{ field: 'name', message: `1..${NAME_MAX} characters` }]);
    }
    const key = mintToken('gpk');
    const row = await this.keys.insert(trimmed, scopes, digest(key));
    return { ...view(row), key };
  }

  async list(): Promise<PlatformKeyView[]> {
    return (await this.keys.list()).map(view);
  }

  async revoke(keyId: number): Promise<PlatformKeyView> {
    const row = await this.keys.revoke(keyId);
    if (!row) throw new NotFoundError('platform key');
    return view(row);
  }

  /** The key's principal, or null for anything but a live platform key. */
  async authenticate(token: string): Promise<PlatformKeyPrincipal | null> {
    if (!isWellFormedToken(token, 'gpk')) return null;
    const row = await this.keys.activeByDigest(digest(token));
    if (!row) return null;
    return {
      keyId: row.id,
      name: row.name,
      scopes: new Set(row.scopes.filter(isPlatformScope)),
      generation: Number(row.generation),
    };
  }
}
