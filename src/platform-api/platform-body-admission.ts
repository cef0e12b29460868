import { Injectable } from '@nestjs/common';
import { bearerToken } from '../common/http/bearer-header.js';
import type { BodyTerms, HttpRequest } from '../common/http/platform/http-platform.js';
import type { PlatformRequest } from '../modules/platform-keys/platform-access.js';
import { NDJSON_MEDIA_TYPE } from '../modules/content/platform/content.platform.openapi.js';
import type { PlatformScope } from '../modules/platform-keys/platform-scopes.js';
import { PLATFORM_PREFIX } from './platform-openapi.js';
import { PlatformKeyVerifier } from './platform-key-verifier.js';

const PLATFORM_BODY: BodyTerms = { forms: false };

/**
 * Routes that read their body themselves, as a stream of one media type, instead of as one JSON
 * value (`BodyTerms.stream`): the NDJSON import, whose body may be far larger than BODY_LIMIT. The
 * key is admitted first all the same.
 */
const STREAMED_BODIES: ReadonlyMap<string, BodyTerms> = new Map([
  [
    `POST /${PLATFORM_PREFIX}/tenants/:tenantId/import`,
    { forms: false, stream: NDJSON_MEDIA_TYPE },
  ],
]);

/**
 * The platform API's edge rule, as the integration API's: no byte of a body is read before the
 * request's platform key is known to be live and, once the guard has met the route, to hold the
 * route's scope. The key found here is kept on the request for the guard.
 */
@Injectable()
export class PlatformBodyAdmission {
  /** `METHOD route` → the scope the guard found on it (null: none, the 404 catch-all). */
  private readonly scopes = new Map<string, PlatformScope | null>();

  constructor(private readonly keys: PlatformKeyVerifier) {}

  async admits(req: HttpRequest, route: string): Promise<BodyTerms | null> {
    const token = bearerToken(req.headers.authorization);
    if (!token) return null;
    const key = await this.keys.verify(token);
    if (!key) return null;
    (req as PlatformRequest).platformKey = key;
    const scope = this.scopes.get(`${req.method} ${route}`);
    if (scope === null) return null;
    if (scope !== undefined && !key.scopes.has(scope)) return null;
    return (
      STREAMED_BODIES.get(`${req.method} ${route}`) ?? {
        ...PLATFORM_BODY,
        party: `key:${key.keyId}`,
      }
    );
  }

  /** What the guard learned of a route, for the next request's admission. */
  learn(method: string, route: string | undefined, scope: PlatformScope | undefined): void {
    if (route !== undefined) this.scopes.set(`${method} ${route}`, scope ?? null);
  }
}
