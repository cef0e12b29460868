import { TenantDirectory } from '../../../common/access/tenant-directory.js';
import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, ResultCommand, UsageError } from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  projectOption,
  requiredPositiveInt,
  requiredText,
  tenantOption,
} from '../../../common/cli/cli-options.js';
import { TenantListCommand } from '../../../common/cli/tenant-list-command.js';
import { ProjectsService } from '../projects.service.js';

interface ProjectOptions {
  json?: boolean;
  tenant?: string;
  name?: string;
  description?: string;
}

interface FileOptions {
  json?: boolean;
  project?: string;
  name?: string;
  mediaType?: string;
  size?: string;
  sha256?: string;
  storagePath?: string;
}

@SubCommand({ name: 'create', description: 'create a project for a tenant' })
@CliOptions(tenantOption(), { flags: '--name <name>' }, { flags: '--description <text>' })
export class ProjectCreateCommand extends ResultCommand<ProjectOptions> {
  constructor(private readonly projects: ProjectsService) {
    super();
  }

  protected async result(o: ProjectOptions): Promise<object> {
    const tenantId = requiredPositiveInt('tenant', o.tenant);
    const name = requiredText('name', o.name, 200);
    if (o.description !== undefined && o.description.length > 5000)
      throw new UsageError('--description is at most 5000 characters');
    return this.projects.createProject(tenantId, { name, description: o.description });
  }
}

@SubCommand({ name: 'list', description: "a tenant's projects, oldest first" })
@CliOptions(tenantOption())
export class ProjectListCommand extends TenantListCommand {
  constructor(
    protected readonly tenants: TenantDirectory,
    private readonly projects: ProjectsService,
  ) {
    super();
  }

  // the API's own pages (GET /projects)
  protected page(tenantId: number, cursor: string | undefined) {
    return this.projects.listProjects(tenantId, { limit: 100, offset: 0, cursor });
  }
}

@Command({
  name: 'project',
  description: 'projects',
  subCommands: [ProjectCreateCommand, ProjectListCommand],
})
export class ProjectCommand extends CommandGroup {}

@SubCommand({
  name: 'add',
  description: "record a file's metadata on a project (the storage path is never shown by the API)",
})
@CliOptions(
  projectOption(),
  { flags: '--name <name>', description: 'file name, e.g. audit.pdf' },
  { flags: '--media-type <type>', description: 'e.g. application/pdf' },
  { flags: '--size <bytes>' },
  { flags: '--sha256 <hex>', description: 'SHA-256 of the file (64 hex digits)' },
  { flags: '--storage-path <location>', description: 'where the bytes live, e.g. s3://b/k' },
)
export class FileAddCommand extends ResultCommand<FileOptions> {
  constructor(private readonly projects: ProjectsService) {
    super();
  }

  protected async result(o: FileOptions): Promise<object> {
    const projectId = requiredPositiveInt('project', o.project);
    const name = requiredText('name', o.name, 500);
    const mediaType = requiredText('media-type', o.mediaType, 255);
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(mediaType))
      throw new UsageError('--media-type must look like type/subtype');
    if (!o.size || !/^\d{1,15}$/.test(o.size))
      throw new UsageError('--size is required (a non-negative integer of bytes)');
    if (o.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(o.sha256))
      throw new UsageError('--sha256 must be 64 hexadecimal digits');
    const storage = requiredText('storage-path', o.storagePath, 2000);
    const tenantId = await this.projects.tenantOfProject(projectId);
    return this.projects.addFile(tenantId, projectId, {
      name,
      media_type: mediaType,
      size_bytes: Number(o.size),
      sha256: o.sha256?.toLowerCase(),
      storage_location: storage,
    });
  }
}

@Command({ name: 'file', description: 'project file metadata', subCommands: [FileAddCommand] })
export class FileCommand extends CommandGroup {}

export const PROJECT_COMMANDS = [
  ProjectCommand,
  ProjectCreateCommand,
  ProjectListCommand,
  FileCommand,
  FileAddCommand,
];
