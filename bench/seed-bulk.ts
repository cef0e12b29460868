import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CliModule } from '../src/cli/cli.module.js';
import { connectCliDatabase } from '../src/cli/cli-database.js';
import { loadConfig } from '../src/common/config/load-config.js';
import { TenantTransactions } from '../src/common/database/tenant-transactions.js';
import { DocumentsService } from '../src/modules/documents/documents.service.js';
import { ProjectsService } from '../src/modules/projects/projects.service.js';
import { contentOf } from './harness.js';

/**
 * The bulk of the benchmark seed in one process, where one CLI call per row would take minutes
 * on a busy machine: more projects, and more versions of one document, created by the document
 * service (`createVersion`, the only code that creates versions), as the CLI's commands do.
 *
 * Usage (same DATA_DIR / DATABASE_URL as the service):
 *   node dist/bench/seed-bulk.js '{"tenantId":1,"projects":49,"documentId":1,"versions":19}'
 * Prints `{ "projectIds": [...], "versionIds": [...] }`.
 */
interface BulkRequest {
  tenantId: number;
  projects: number;
  documentId: number;
  versions: number;
  /** Number of the first new version's content (the document's current version count + 1). */
  firstNumber: number;
}

const req = JSON.parse(process.argv[2] ?? '{}') as BulkRequest;
const { config, release } = await connectCliDatabase(
  loadConfig({ ...process.env, WORKERS_ENABLED: 'false', SEED_DEMO: 'false' }),
);
const app = await NestFactory.createApplicationContext(CliModule.register(config), {
  logger: ['error'],
});
try {
  const projects = app.get(ProjectsService, { strict: false });
  const documents = app.get(DocumentsService, { strict: false });
  const tx = app.get(TenantTransactions, { strict: false });
  const projectIds: number[] = [];
  for (let i = 0; i < req.projects; i++) {
    const p = await projects.createProject(req.tenantId, { name: `Benchmark project ${i + 2}` });
    projectIds.push(p.projectId);
  }
  const versionIds: number[] = [];
  for (let i = 0; i < req.versions; i++) {
    const n = req.firstNumber + i;
    const v = await tx.run(req.tenantId, () =>
      documents.createVersion(req.tenantId, req.documentId, contentOf(n), 'platform'),
    );
    versionIds.push(v.versionId);
  }
  process.stdout.write(`${JSON.stringify({ projectIds, versionIds })}\n`);
} finally {
  await app.close();
  await release();
}
