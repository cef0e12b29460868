import { Module } from '@nestjs/common';
import { AuthModule } from '../modules/auth/auth.module.js';
import { DocumentsModule } from '../modules/documents/documents.module.js';
import { ProjectsModule } from '../modules/projects/projects.module.js';
import { TenancyModule } from '../modules/tenancy/tenancy.module.js';
import { DemoSeedService } from './demo-seed.service.js';

/** The demo data set; its own module so that tenancy itself depends on no other context. */
@Module({
  imports: [TenancyModule, AuthModule, ProjectsModule, DocumentsModule],
  providers: [DemoSeedService],
  exports: [DemoSeedService],
})
export class DemoModule {}
