import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CliModule } from '../src/cli/cli.module.js';
import { connectCliDatabase } from '../src/cli/cli-database.js';
import { loadConfig } from '../src/common/config/load-config.js';
import { DocumentsService } from '../src/modules/documents/documents.service.js';
import { contentOf } from './harness.js';

/**
 * Documents for the platform accept benchmark (platform-accept.ts), in one process: each accept
 * consumes a document's staged candidate (the next version supersedes any other staged on it),
 * so every request of the load needs a document of its own, too many for one CLI call each.
 *
 * Usage (same DATA_DIR / DATABASE_URL as the service):
 *   node dist/bench/seed-candidates.js '{"tenantId":1,"projectId":1,"documents":3000}'
 * Prints `{ "documentIds": [...] }`.
 */
interface SeedRequest {
  tenantId: number;
  projectId: number;
  documents: number;
}

const req = JSON.parse(process.argv[2] ?? '{}') as SeedRequest;
const { config, release } = await connectCliDatabase(
  loadConfig({ ...process.env, WORKERS_ENABLED: 'false', SEED_DEMO: 'false' }),
);
const app = await NestFactory.createApplicationContext(CliModule.register(config), {
  logger: ['error'],
});
try {
  const documents = app.get(DocumentsService, { strict: false });
  const documentIds: number[] = [];
  for (let i = 0; i < req.documents; i++) {
    const d = await documents.createDocument(
      req.tenantId,
      req.projectId,
      `Reviewed policy ${i + 1}`,
      contentOf(1),
    );
    documentIds.push(d.documentId);
  }
  process.stdout.write(`${JSON.stringify({ documentIds })}\n`);
} finally {
  await app.close();
  await release();
}
