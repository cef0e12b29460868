import { readFile } from 'node:fs/promises';
import { checkBodyShape } from '../../../common/http/validation.js';
import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, resolveCliPath, ResultCommand } from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  projectOption,
  requiredOption,
  requiredPositiveInt,
  requiredText,
} from '../../../common/cli/cli-options.js';
import { ValidationFailedError } from '../../../common/http/app-error.js';
import {
  jsonLimitProblem,
  type JsonLimits,
  jsonLimitsOf,
} from '../../../common/http/json-limits.js';
import { AppConfig } from '../../../common/config/app-config.js';
import { ProjectsService } from '../../projects/projects.service.js';
import { DocumentsService } from '../documents.service.js';

interface DocumentOptions {
  json?: boolean;
  project?: string;
  title?: string;
  contentFile?: string;
}

async function readContent(path: string, limits: JsonLimits): Promise<Record<string, unknown>> {
  const invalid = (message: string): ValidationFailedError =>
    new ValidationFailedError([{ field: 'content-file', message }]);
  let text: string;
  try {
    text = await readFile(resolveCliPath(path), 'utf8');
  } catch {
    throw invalid(`cannot read ${path}`);
  }
  // counted before it is parsed, as the API counts a body (CONTENT_MAX_NODES, CONTENT_MAX_DEPTH)
  const tooLarge = jsonLimitProblem(`{"content":${text}}`, limits);
  if (tooLarge) throw new ValidationFailedError([tooLarge]);
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch {
    throw invalid(`${path} is not valid JSON`);
  }
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw invalid(`${path} must hold a JSON object`);
  // what the API refuses in content, the CLI refuses too (U+0000, lone surrogates, `__proto__`)
  const problem = checkBodyShape({ content }, undefined, new Set(['content']));
  if (problem) throw new ValidationFailedError([problem]);
  return content as Record<string, unknown>;
}

@SubCommand({
  name: 'create',
  description: 'create a document (version 1) in a project from a JSON file',
})
@CliOptions(
  projectOption(),
  { flags: '--title <title>' },
  { flags: '--content-file <path>', description: 'a file holding one JSON object' },
)
export class DocumentCreateCommand extends ResultCommand<DocumentOptions> {
  constructor(
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  protected async result(o: DocumentOptions): Promise<object> {
    const projectId = requiredPositiveInt('project', o.project);
    const title = requiredText('title', o.title, 500);
    const path = requiredOption('content-file', o.contentFile);
    const content = await readContent(path, jsonLimitsOf(this.config));
    const tenantId = await this.projects.tenantOfProject(projectId);
    return this.documents.createDocument(tenantId, projectId, title, content);
  }
}

@Command({ name: 'document', description: 'documents', subCommands: [DocumentCreateCommand] })
export class DocumentCommand extends CommandGroup {}

export const DOCUMENT_COMMANDS = [DocumentCommand, DocumentCreateCommand];
