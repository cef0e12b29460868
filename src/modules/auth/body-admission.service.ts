import { Injectable } from '@nestjs/common';
import type { BodyTerms, HttpRequest } from '../../common/http/platform/http-platform.js';
import { bearerToken } from './bearer-header.js';
import { CredentialsService } from './credentials.service.js';
import { ipAllowed } from './ip-allowlist.js';
import { TOKEN_BODY_LIMIT, TOKEN_ROUTE } from './token-route.js';

/** The token endpoint's: read before authentication (it authenticates from it), forms too. */
const TOKEN_BODY: BodyTerms = { forms: true, limit: TOKEN_BODY_LIMIT };
/** Any other route's, once its sender is admitted: JSON. */
const API_BODY: BodyTerms = { forms: false };

/**
 * Decides, before one byte of a request's body is read, whether it is read at all
 * (CONTRACT.md §10 "Edge"): only for the token endpoint, which authenticates from its body, and
 * for a caller whose bearer credential is valid (format, checksum, then the cache or the
 * database) and allowed from its address. Anyone else is answered by the guard (401, 403)
 * without the server reading, decompressing or parsing what they sent.
 */
@Injectable()
export class BodyAdmissionService {
  constructor(private readonly credentials: CredentialsService) {}

  async admits(req: HttpRequest, route: string): Promise<BodyTerms | null> {
    if (route === TOKEN_ROUTE) return TOKEN_BODY;
    const token = bearerToken(req.headers.authorization);
    if (!token) return null;
    const principal = await this.credentials.authenticate(token);
    return principal !== null && ipAllowed(req.ip, principal.allowedIps) ? API_BODY : null;
  }
}
