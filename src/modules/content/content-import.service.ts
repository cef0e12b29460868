import { Injectable, type ValidationPipe } from '@nestjs/common';
import { AppConfig } from '../../common/config/app-config.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import { AppError, NotFoundError, ValidationFailedError } from '../../common/http/app-error.js';
import { jsonLimitsOf } from '../../common/http/json-limits.js';
import { type StorableContent, storableContent } from '../../common/http/storable-content.js';
import { createValidationPipe } from '../../common/http/validation.js';
import { DocumentsPlatformService } from '../documents/documents-platform.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { fileInput, projectInput } from './content-inputs.js';
import {
  Batch,
  type BatchLine,
  IMPORT_BATCH_BYTES,
  IMPORT_BATCH_LINES,
  type ImportReport,
  Tally,
} from './import-batch.js';
import { parseImportLine } from './import-line.js';
import { ndjsonLines } from './ndjson-lines.js';

/** A document line of a batch as its multi-row upsert takes it. */
interface GroupDocument {
  projectId: number;
  externalId: string;
  title: string;
  first: StorableContent;
}

/** The NDJSON import of the platform's content (ContentService checks the tenant first). */
@Injectable()
export class ContentImportService {
  private readonly pipe: ValidationPipe = createValidationPipe();

  constructor(
    private readonly config: AppConfig,
    private readonly tx: TenantTransactions,
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsPlatformService,
  ) {}

  /**
   * POST /tenants/{tenantId}/import: the NDJSON body's upserts, read as it streams in. Lines are
   * parsed and checked as they arrive and written a batch per transaction (at most
   * IMPORT_BATCH_LINES lines); while one batch is written the next is parsed, and the body is not
   * read further until the write is done, so memory holds two batches whatever the body's size.
   * A refused line is an entry of `errors` (the first IMPORT_ERRORS_KEPT by line), never a failed
   * request: the good lines are kept. A line may name a project made by an earlier line. Upserts
   * by the platform's ids make a re-run create nothing.
   */
  async importNdjson(
    tenantId: number,
    body: AsyncIterable<Buffer | string>,
  ): Promise<ImportReport> {
    const maxLineBytes = this.config.BODY_LIMIT;
    const limits = jsonLimitsOf(this.config);
    const report = new Tally();
    let batch = new Batch();
    let writing: Promise<void> = Promise.resolve();
    const write = async (full: Batch): Promise<void> => {
      await writing;
      writing = this.writeBatch(tenantId, full, report);
      // a failure surfaces at the next await of `writing`, or at the end
      writing.catch(() => undefined);
    };
    for await (const raw of ndjsonLines(body, maxLineBytes)) {
      const parsed = await parseImportLine(raw.bytes, maxLineBytes, limits, this.pipe);
      if (parsed.kind === 'blank') continue;
      if (parsed.kind === 'error') {
        batch.refused(raw.number, parsed.code, parsed.message);
        continue;
      }
      const { line } = parsed;
      let stored: StorableContent | undefined;
      if (line.kind === 'document' && line.content !== undefined) {
        try {
          stored = storableContent(line.content);
        } catch (err) {
          if (!(err instanceof ValidationFailedError)) throw err;
          batch.refused(raw.number, err.code, err.message);
          continue;
        }
        // only its canonical text is written: the parsed value need not wait in the batch
        line.content = undefined;
      }
      batch.lines.push({ number: raw.number, line, stored });
      batch.bytes += raw.bytes?.length ?? 0;
      if (batch.lines.length >= IMPORT_BATCH_LINES || batch.bytes >= IMPORT_BATCH_BYTES) {
        await write(batch);
        batch = new Batch();
      }
    }
    await write(batch);
    await writing;
    return { created: report.created, updated: report.updated, errors: report.errors };
  }

  /**
   * One transaction for the batch; its counts and errors join the report once it committed. A
   * line the services refuse (an unknown project) is an error of its own and the rest go on:
   * nothing of it reached the database. A statement that fails for its data aborts the
   * transaction: the batch is written again a line per transaction, so only that line is lost.
   */
  private async writeBatch(tenantId: number, batch: Batch, report: Tally): Promise<void> {
    const tally = new Tally();
    for (const e of batch.errors) tally.errors.push(e);
    try {
      if (batch.lines.length) {
        await this.tx.run(tenantId, () => this.writeLines(tenantId, batch.lines, tally));
      }
    } catch (err) {
      if (!isDataError(err)) throw err;
      if (batch.lines.length === 1) {
        report.merge(
          Tally.refusing(
            batch.lines[0]!.number,
            'validation_failed',
            'the line could not be stored',
          ),
        );
        return;
      }
      const retried = new Tally();
      for (const e of batch.errors) retried.errors.push(e);
      for (const item of batch.lines) {
        const one = new Batch();
        one.lines.push(item);
        await this.writeBatch(tenantId, one, retried);
      }
      report.merge(retried);
      return;
    }
    report.merge(tally);
  }

  /**
   * The lines of a batch inside its transaction: projects first, each as its line says; then
   * documents, as few multi-row statements as their order allows; then files. A document or file
   * line finds its project among the projects before the batch or those of the batch's EARLIER
   * lines, exactly as if every line were written in turn.
   */
  private async writeLines(tenantId: number, items: BatchLine[], tally: Tally): Promise<void> {
    // read before the batch's own project upserts, which the lines' order governs (`madeHere`)
    const named = new Set<string>();
    for (const { line } of items) if (line.kind !== 'project') named.add(line.project_external_id);
    const before = await this.projects.projectIdsByExternalIds(tenantId, [...named]);
    const madeHere = new Map<string, { id: number; line: number }>();
    for (const item of items) {
      if (item.line.kind !== 'project') continue;
      const { line } = item;
      const { created, view } = await this.projects.upsertProject(
        tenantId,
        line.external_id,
        projectInput(line),
      );
      if (!madeHere.has(line.external_id)) {
        madeHere.set(line.external_id, { id: view.projectId, line: item.number });
      }
      tally.count('projects', created);
    }
    const projectOf = (item: BatchLine & { line: { project_external_id: string } }) => {
      const ext = item.line.project_external_id;
      const made = madeHere.get(ext);
      const id = before.get(ext) ?? (made && made.line < item.number ? made.id : undefined);
      if (id === undefined) {
        tally.refuse(item.number, 'not_found', `project_external_id: no project "${ext}"`);
      }
      return id;
    };

    let group: Array<{ number: number; doc: GroupDocument }> = [];
    const flush = async (): Promise<void> => {
      if (!group.length) return;
      const done = await this.documents.upsertPlatformDocuments(
        tenantId,
        group.map((g) => g.doc),
      );
      for (const g of group) tally.count('documents', done.get(g.doc.externalId)!.created);
      group = [];
    };
    for (const item of items) {
      const { line } = item;
      if (line.kind !== 'document') continue;
      const projectId = projectOf({ ...item, line });
      if (projectId === undefined) continue;
      if (!item.stored) {
        // no content: an update of an existing document only, in its turn
        await flush();
        try {
          await this.documents.upsertPlatformDocument(
            tenantId,
            projectId,
            line.external_id,
            line.title,
            undefined,
          );
          tally.count('documents', false);
        } catch (err) {
          if (!isLineRefusal(err)) throw err;
          tally.refuse(item.number, err.code, err.message);
        }
        continue;
      }
      // one statement cannot write a row twice: a repeated id starts the next statement
      if (group.some((g) => g.doc.externalId === line.external_id)) await flush();
      group.push({
        number: item.number,
        doc: { projectId, externalId: line.external_id, title: line.title, first: item.stored },
      });
    }
    await flush();

    for (const item of items) {
      const { line } = item;
      if (line.kind !== 'file') continue;
      const projectId = projectOf({ ...item, line });
      if (projectId === undefined) continue;
      const { created } = await this.projects.upsertFile(
        tenantId,
        projectId,
        line.external_id,
        fileInput(line),
      );
      tally.count('files', created);
    }
  }
}

/** What a line's own write refuses without touching the database: answered, the batch goes on. */
function isLineRefusal(err: unknown): err is AppError {
  return err instanceof NotFoundError || err instanceof ValidationFailedError;
}

/**
 * A statement refused for the data it was given (SQLSTATE classes 22 and 23: a value out of
 * range, a constraint): one line's fault, so the import goes on without it. Anything else (the
 * database unreachable, a timeout) fails the request.
 */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}
