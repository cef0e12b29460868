import { Injectable } from '@nestjs/common';
import type { BodyTerms, HttpRequest } from '../../common/http/platform/http-platform.js';
import { bearerToken } from '../../common/http/bearer-header.js';
import { CredentialsService } from './credentials.service.js';
import { permits } from './authorization.js';
import { RouteRequirements } from './route-requirements.js';
import { TOKEN_BODY_LIMIT, TOKEN_ROUTE } from '../../common/http/token-route.js';
import { countedAddress } from '../../common/http/client-address.js';

/** The token endpoint's: read before authentication (it authenticates from it), forms too. */
const TOKEN_BODY: BodyTerms = { forms: true, limit: TOKEN_BODY_LIMIT };
/** Any other route's, once its sender is admitted: JSON. */
const API_BODY: BodyTerms = { forms: false };

/**
 * Decides, before one byte of a request's body is read, whether it is read at all
 * (docs/operators/security.md): only for the token endpoint, which authenticates from its body, and
 * for a caller whose bearer credential is valid (format, checksum, then the cache or the
 * database), allowed from its address and, once the guard has met the route, holding its scope
 * and entitlement (`RouteRequirements`). Anyone else is answered by the guard (401, 403) without
 * the server reading, decompressing or parsing what they sent.
 */
@Injectable()
export class BodyAdmissionService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly requirements: RouteRequirements,
  ) {}

  async admits(req: HttpRequest, route: string): Promise<BodyTerms | null> {
    if (route === TOKEN_ROUTE) return TOKEN_BODY;
    const token = bearerToken(req.headers.authorization);
    if (!token) return null;
    const principal = await this.credentials.authenticate(token, {
      caller: countedAddress(req),
      request: req,
    });
    if (principal === null) return null;
    // the route's scope and entitlement too, once the guard has met the route
    const requirement = this.requirements.of(req.method, route);
    // a route met that requires nothing of its caller is the 404 catch-all (every route that takes
    // a body is @Authorized or @Public): there is nothing to read a body for
    if (requirement === null) return null;
    return permits(req.ip, principal, requirement)
      ? { ...API_BODY, party: `tenant:${principal.tenantId}` }
      : null;
  }
}
