import { Injectable } from '@nestjs/common';
import { digest } from '../common/crypto/tokens.js';
import { CredentialCache } from '../modules/auth/credential-cache.js';
import {
  type PlatformKeyPrincipal,
  PlatformKeysService,
} from '../modules/platform-keys/platform-keys.service.js';

type CachedKey = PlatformKeyPrincipal & { expiresAt: number };

/**
 * Platform keys as the platform API checks them: verified keys are kept in the integration API's
 * credential cache (src/modules/auth/credential-cache.ts), so the common request costs no
 * database round trip for its key. The cache's rules hold for keys too:
 * - a revoked, deleted or changed key fires `NOTIFY credentials_changed` and bumps
 *   `credential_generation` at commit (migrations/1764005000000-platform-key-change-notify.ts),
 *   and the notification empties the cache;
 * - answers come from memory only while the process is listening, and for at most
 *   `AUTH_CACHE_TTL_MS` (1 s by default) each;
 * - the guard records the generation the key was verified at; the round trip that opens a tenant
 *   transaction reads the current one and verifies the key again from the database when it has
 *   moved on, so a write (an accept, an import) never runs on a key revoked before it began.
 * Unknown keys are never kept: a wrong key always reaches the database.
 */
@Injectable()
export class PlatformKeyVerifier {
  constructor(
    private readonly keys: PlatformKeysService,
    private readonly cache: CredentialCache,
  ) {}

  /** The key's principal, or null for anything but a live key; `fresh`: from the database. */
  verify(token: string, options: { fresh?: boolean } = {}): Promise<PlatformKeyPrincipal | null> {
    const load = async (): Promise<CachedKey | null> => {
      const key = await this.keys.authenticate(token);
      return key && { ...key, expiresAt: Number.POSITIVE_INFINITY };
    };
    if (options.fresh) return load();
    // the digest, not the key itself, names the entry
    return this.cache.get(`platform-key:${digest(token).toString('base64')}`, load);
  }
}
