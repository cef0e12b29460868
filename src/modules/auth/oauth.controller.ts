import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { NoStore } from '../../common/http/no-store.decorator.js';
import { ApiTags } from '@nestjs/swagger';
import type { HttpRequest as Request } from '../../common/http/platform/http-platform.js';
import { attachAuditLocals, Audited, type AuditLocals } from '../audit/audited.decorator.js';
import { OAuthTokenResponse } from './dto/token.response.js';
import { Public } from '../../common/access/public.decorator.js';
import { OAuthTokenService, type TokenRequest } from './token.service.js';
import { OAuthDocs } from './oauth.openapi.js';

function tokenRequest(req: Request): TokenRequest {
  return {
    body: req.body,
    form: /^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers['content-type'] ?? ''),
    authorization: req.headers.authorization,
    ip: req.ip,
  };
}

@ApiTags('auth')
@Controller('oauth')
export class OAuthController {
  constructor(private readonly tokens: OAuthTokenService) {}

  @Post('token')
  @Public()
  @Audited('token.issue', () => null)
  @HttpCode(200)
  @NoStore()
  @OAuthDocs.token()
  token(@Req() req: Request): Promise<OAuthTokenResponse> {
    // filled in once the client is known, so the audit line names its tenant and credential
    const audit: AuditLocals = {};
    attachAuditLocals(req, audit);
    return this.tokens.issue(tokenRequest(req), audit);
  }
}
