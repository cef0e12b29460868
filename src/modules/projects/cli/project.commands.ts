import { Command, Option, SubCommand } from 'nest-commander';
import {
  CommandGroup,
  JsonCommand,
  positiveInt,
  runCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
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

function required(flag: string, value: string | undefined, max = 500): string {
  const v = value?.trim();
  if (!v || v.length > max) throw new UsageError(`--${flag} is required (1..${max} characters)`);
  return v;
}

@SubCommand({ name: 'create', description: 'create a project for a tenant' })
export class ProjectCreateCommand extends JsonCommand {
  constructor(private readonly projects: ProjectsService) {
    super();
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(v: string): string {
    return v;
  }

  @Option({ flags: '--name <name>' })
  parseName(v: string): string {
    return v;
  }

  @Option({ flags: '--description <text>' })
  parseDescription(v: string): string {
    return v;
  }

  async run(_: string[], o: ProjectOptions): Promise<void> {
    await runCommand(o, async () => {
      if (!o.tenant) throw new UsageError('--tenant is required');
      const tenantId = positiveInt('tenant', o.tenant);
      const name = required('name', o.name, 200);
      if (o.description !== undefined && o.description.length > 5000)
        throw new UsageError('--description is at most 5000 characters');
      return this.projects.createProject(tenantId, { name, description: o.description });
    });
  }
}

@Command({
  name: 'project',
  description: 'projects',
  subCommands: [ProjectCreateCommand],
})
export class ProjectCommand extends CommandGroup {}

@SubCommand({
  name: 'add',
  description: "record a file's metadata on a project (the storage path is never shown by the API)",
})
export class FileAddCommand extends JsonCommand {
  constructor(private readonly projects: ProjectsService) {
    super();
  }

  @Option({ flags: '--project <id>' })
  parseProject(v: string): string {
    return v;
  }

  @Option({ flags: '--name <name>', description: 'file name, e.g. audit.pdf' })
  parseName(v: string): string {
    return v;
  }

  @Option({ flags: '--media-type <type>', description: 'e.g. application/pdf' })
  parseMediaType(v: string): string {
    return v;
  }

  @Option({ flags: '--size <bytes>' })
  parseSize(v: string): string {
    return v;
  }

  @Option({ flags: '--sha256 <hex>', description: 'SHA-256 of the file (64 hex digits)' })
  parseSha256(v: string): string {
    return v;
  }

  @Option({
    flags: '--storage-path <location>',
    description: 'where the bytes live, e.g. s3://b/k',
  })
  parseStoragePath(v: string): string {
    return v;
  }

  async run(_: string[], o: FileOptions): Promise<void> {
    await runCommand(o, async () => {
      if (!o.project) throw new UsageError('--project is required');
      const projectId = positiveInt('project', o.project);
      const name = required('name', o.name);
      const mediaType = required('media-type', o.mediaType, 255);
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(mediaType))
        throw new UsageError('--media-type must look like type/subtype');
      if (!o.size || !/^\d{1,15}$/.test(o.size))
        throw new UsageError('--size is required (a non-negative integer of bytes)');
      if (o.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(o.sha256))
        throw new UsageError('--sha256 must be 64 hexadecimal digits');
      const storage = required('storage-path', o.storagePath, 2000);
      const tenantId = await this.projects.tenantOfProject(projectId);
      return this.projects.addFile(tenantId, projectId, {
        name,
        media_type: mediaType,
        size_bytes: Number(o.size),
        sha256: o.sha256?.toLowerCase(),
        storage_location: storage,
      });
    });
  }
}

@Command({ name: 'file', description: 'project file metadata', subCommands: [FileAddCommand] })
export class FileCommand extends CommandGroup {}

export const PROJECT_COMMANDS = [ProjectCommand, ProjectCreateCommand, FileCommand, FileAddCommand];
