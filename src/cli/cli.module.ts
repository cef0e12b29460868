import { type DynamicModule, Module } from '@nestjs/common';
import type { CommandClass } from '../common/cli/cli-command.js';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../common/config/app-config.js';
import { ConfigModule } from '../common/config/config.module.js';
import { ENTITIES } from '../entities.js';
import { DatabaseModule } from '../common/database/database.module.js';
import { AUDIT_COMMANDS, AuditCommand } from '../modules/audit/cli/audit.commands.js';
import { AuditModule } from '../modules/audit/audit.module.js';
import { DOCUMENT_COMMANDS, DocumentCommand } from '../modules/documents/cli/document.commands.js';
import { DocumentsModule } from '../modules/documents/documents.module.js';
import {
  FileCommand,
  PROJECT_COMMANDS,
  ProjectCommand,
} from '../modules/projects/cli/project.commands.js';
import { ProjectsModule } from '../modules/projects/projects.module.js';
import {
  ClientCommand,
  CREDENTIAL_COMMANDS,
  PatCommand,
} from '../modules/auth/cli/credential.commands.js';
import { AuthModule } from '../modules/auth/auth.module.js';
import { REVISION_COMMANDS, RevisionCommand } from '../modules/revisions/cli/revision.commands.js';
import { RevisionsModule } from '../modules/revisions/revisions.module.js';
import { DEMO_COMMANDS, DemoCommand } from '../demo/demo.commands.js';
import { TENANT_COMMANDS, TenantCommand } from '../modules/tenancy/cli/tenant.commands.js';
import { DemoModule } from '../demo/demo.module.js';
import { TenancyModule } from '../modules/tenancy/tenancy.module.js';
import { WebhooksModule } from '../modules/webhooks/webhooks.module.js';
import { TESTING_COMMANDS, TestingCommand } from '../modules/testing/cli/testing.commands.js';
import { TestingModule } from '../modules/testing/testing.module.js';
import { WEBHOOK_COMMANDS, WebhookCommand } from '../modules/webhooks/cli/webhook.commands.js';
import { FIXTURE_COMMANDS, FixtureCommand } from './fixture.command.js';
import {
  PLATFORM_KEY_COMMANDS,
  PlatformKeyCommand,
} from '../modules/platform-keys/cli/platform-key.commands.js';
import { PlatformKeysModule } from '../modules/platform-keys/platform-keys.module.js';

/** The top-level commands, in the order `--help` lists them. */
export const CLI_COMMANDS: readonly CommandClass[] = [
  AuditCommand,
  TenantCommand,
  ClientCommand,
  PatCommand,
  DemoCommand,
  RevisionCommand,
  ProjectCommand,
  FileCommand,
  DocumentCommand,
  WebhookCommand,
  FixtureCommand,
  PlatformKeyCommand,
];

/** The top-level commands a context registered with `config` runs (see `CliModule.register`). */
export const CLI_ROOTS = Symbol('CLI_ROOTS');

function rootsFor(config: AppConfig): readonly CommandClass[] {
  return config.TESTING_COMMANDS ? [...CLI_COMMANDS, TestingCommand] : CLI_COMMANDS;
}

/**
 * The administration CLI: the same modules and services as the API, without HTTP. Each bounded
 * context contributes its commands from `modules/<context>/cli/`, the demo seed from `demo/`.
 */
@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.register(config),
        DatabaseModule.forRoot(ENTITIES),
        // the fixture command runs its own transactions
        DatabaseModule,
        AuditModule,
        ScheduleModule.forRoot(),
        TenancyModule,
        AuthModule,
        DemoModule,
        RevisionsModule,
        ProjectsModule,
        DocumentsModule,
        WebhooksModule,
        PlatformKeysModule,
        // `testing reset` would empty every tenant: absent unless the service was started for tests
        ...(config.TESTING_COMMANDS ? [TestingModule] : []),
      ],
      providers: [
        { provide: CLI_ROOTS, useValue: rootsFor(config) },
        ...AUDIT_COMMANDS,
        ...TENANT_COMMANDS,
        ...CREDENTIAL_COMMANDS,
        ...DEMO_COMMANDS,
        ...REVISION_COMMANDS,
        ...PROJECT_COMMANDS,
        ...DOCUMENT_COMMANDS,
        ...WEBHOOK_COMMANDS,
        ...FIXTURE_COMMANDS,
        ...PLATFORM_KEY_COMMANDS,
        ...(config.TESTING_COMMANDS ? TESTING_COMMANDS : []),
      ],
    };
  }
}
