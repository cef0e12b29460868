import { TokenRetention } from './token-retention.js';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { BearerFailuresModule } from '../rate-limit/bearer-failures.module.js';
import { DatabaseModule } from '../../common/database/database.module.js';
import { ApiAuthGuard } from './auth.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { BodyAdmissionService } from './body-admission.service.js';
import { RouteRequirements } from './route-requirements.js';
import { AuthRepository } from './auth.repository.js';
import { CredentialAdminService } from './credential-admin.service.js';
import { CredentialCache } from './credential-cache.js';
import { CredentialFreshness } from './credential-freshness.js';
import { CredentialsService } from './credentials.service.js';
import { OAuthController } from './oauth.controller.js';
import { OAuthTokenService } from './token.service.js';

@Module({
  imports: [
    PassportModule.register({ session: false }),
    TenancyModule,
    // the token endpoint is audited
    AuditModule,
    BearerFailuresModule,
    DatabaseModule,
  ],
  controllers: [OAuthController],
  providers: [
    AuthRepository,
    CredentialCache,
    CredentialFreshness,
    TokenRetention,
    CredentialsService,
    CredentialAdminService,
    OAuthTokenService,
    BearerStrategy,
    BodyAdmissionService,
    RouteRequirements,
    { provide: APP_GUARD, useClass: ApiAuthGuard },
  ],
  exports: [CredentialsService, CredentialAdminService, BodyAdmissionService, TokenRetention],
})
export class AuthModule {}
