import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { DocumentsModule } from '../../documents/documents.module.js';
import { ProjectsModule } from '../../projects/projects.module.js';
import { TenancyModule } from '../tenancy.module.js';
import { DemoSeedService } from './demo-seed.service.js';

/** The demo data set; its own module so that tenancy itself depends on no other context. */
@Module({
  imports: [TenancyModule, AuthModule, ProjectsModule, DocumentsModule],
  providers: [DemoSeedService],
  exports: [DemoSeedService],
})
export class DemoModule {}
