import { readFile } from 'node:fs/promises';
import { Command, Option, SubCommand } from 'nest-commander';
import {
  CommandGroup,
  JsonCommand,
  positiveInt,
  resolveCliPath,
  runCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
import { ValidationFailedError } from '../../../common/http/app-error.js';
import { ProjectsService } from '../../projects/projects.service.js';
import { DocumentsService } from '../documents.service.js';

interface DocumentOptions {
  json?: boolean;
  project?: string;
  title?: string;
  contentFile?: string;
}

async function readContent(path: string): Promise<Record<string, unknown>> {
  const invalid = (message: string): ValidationFailedError =>
    new ValidationFailedError([{ field: 'content-file', message }]);
  let text: string;
  try {
    text = await readFile(resolveCliPath(path), 'utf8');
  } catch {
    throw invalid(`cannot read ${path}`);
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch {
    throw invalid(`${path} is not valid JSON`);
  }
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw invalid(`${path} must hold a JSON object`);
  return content as Record<string, unknown>;
}

@SubCommand({
  name: 'create',
  description: 'create a document (version 1) in a project from a JSON file',
})
export class DocumentCreateCommand extends JsonCommand {
  constructor(
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsService,
  ) {
    super();
  }

  @Option({ flags: '--project <id>' })
  parseProject(v: string): string {
    return v;
  }

  @Option({ flags: '--title <title>' })
  parseTitle(v: string): string {
    return v;
  }

  @Option({ flags: '--content-file <path>', description: 'a file holding one JSON object' })
  parseContentFile(v: string): string {
    return v;
  }

  async run(_: string[], o: DocumentOptions): Promise<void> {
    await runCommand(o, async () => {
      if (!o.project) throw new UsageError('--project is required');
      const projectId = positiveInt('project', o.project);
      const title = o.title?.trim();
      if (!title || title.length > 500)
        throw new UsageError('--title is required (1..500 characters)');
      if (!o.contentFile) throw new UsageError('--content-file is required');
      const content = await readContent(o.contentFile);
      const tenantId = await this.projects.tenantOfProject(projectId);
      return this.documents.createDocument(tenantId, projectId, title, content);
    });
  }
}

@Command({ name: 'document', description: 'documents', subCommands: [DocumentCreateCommand] })
export class DocumentCommand extends CommandGroup {}

export const DOCUMENT_COMMANDS = [DocumentCommand, DocumentCreateCommand];
