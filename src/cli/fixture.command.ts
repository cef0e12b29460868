import { readFile } from 'node:fs/promises';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { Command, SubCommand } from '../common/cli/cli-command.js';
import { CliOptions, requiredOption } from '../common/cli/cli-options.js';
import { TenantTransactions } from '../common/database/tenant-transactions.js';
import { AppError, ValidationFailedError } from '../common/http/app-error.js';
import type { ErrorCode } from '../common/http/error-codes.js';
import { CredentialAdminService } from '../modules/auth/credential-admin.service.js';
import { DocumentsService } from '../modules/documents/documents.service.js';
import { ProjectsService } from '../modules/projects/projects.service.js';
import { isPlan, PLANS } from '../modules/tenancy/plans.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';
import { CreateWebhookRequest } from '../modules/webhooks/dto/webhook.request.js';
import { WebhooksService } from '../modules/webhooks/webhooks.service.js';
import {
  CommandGroup,
  resolveCliPath,
  ResultCommand,
  UsageError,
} from '../common/cli/cli-output.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(parent: Json, key: string, at: string): Json[] {
  const value = parent[key] ?? [];
  if (!Array.isArray(value) || !value.every(isObject)) {
    throw new UsageError(`${at}.${key} must be an array of objects`);
  }
  return value;
}

function text(parent: Json, key: string, at: string): string {
  const value = parent[key];
  if (typeof value !== 'string') throw new UsageError(`${at}.${key} must be a string`);
  return value;
}

function optionalText(parent: Json, key: string, at: string): string | undefined {
  return parent[key] === undefined ? undefined : text(parent, key, at);
}

function strings(parent: Json, key: string, at: string): string[] {
  const value = parent[key] ?? [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new UsageError(`${at}.${key} must be an array of strings`);
  }
  return value;
}

/** `scopes` as in the CLI (`"a b"`) or as an array. */
function scopes(parent: Json, at: string): string | string[] {
  return typeof parent.scopes === 'string' ? parent.scopes : strings(parent, 'scopes', at);
}

async function readFixture(path: string): Promise<Json> {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(resolveCliPath(path), 'utf8'));
  } catch (err) {
    throw new UsageError(
      `--file ${path}: ${err instanceof SyntaxError ? 'not valid JSON' : 'cannot be read'}`,
    );
  }
  if (!isObject(body)) throw new UsageError(`--file ${path}: must hold one JSON object`);
  return body;
}

/** A service's refusal of one entry, named by its place in the file; its code is kept. */
class EntryError extends AppError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Runs the service call that makes entry `at`; what it throws names the entry. */
async function entry<T>(at: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${at}: ${err.message}`);
    if (err instanceof AppError) throw new EntryError(err.code, `${at}: ${err.message}`);
    throw new Error(`${at}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

interface FixtureOptions {
  json?: boolean;
  file?: string;
}

/**
 * `fixture apply --file F`: tenants with their clients, PATs, projects, documents and webhooks,
 * from one JSON file in one call, through each context's service. Prints every id and secret it
 * made (shown once, as `client create` does). All or nothing: one transaction (the services'
 * own join it), so a failure leaves nothing behind, and the error names the entry that failed.
 */
@SubCommand({
  name: 'apply',
  description: 'create tenants, clients, PATs, projects, documents and webhooks from a JSON file',
})
@CliOptions({
  flags: '--file <path>',
  description: 'the fixture (see docs/platform/cli.md, "Fixtures")',
})
export class FixtureApplyCommand extends ResultCommand<FixtureOptions> {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly credentials: CredentialAdminService,
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsService,
    private readonly webhooks: WebhooksService,
    private readonly tx: TenantTransactions,
  ) {
    super();
  }

  protected async result(o: FixtureOptions): Promise<object> {
    const fixture = await readFixture(requiredOption('file', o.file));
    return this.tx.runAsSystem(async () => {
      const tenants = [];
      for (const [i, t] of list(fixture, 'tenants', 'fixture').entries()) {
        tenants.push(await this.tenant(t, `tenants[${i}]`));
      }
      return { tenants };
    });
  }

  /**
   * What makes the entry's tenant: a new one of `name` and `plan`, or with `tenant_id` the
   * existing tenant, unchanged (the entries add to it). Checked before anything is made.
   */
  private tenantMaker(t: Json, at: string): () => Promise<{ tenant_id: number }> {
    if (t.tenant_id !== undefined) {
      const id = t.tenant_id;
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
        throw new UsageError(`${at}.tenant_id must be a positive integer`);
      }
      if (t.name !== undefined || t.plan !== undefined) {
        throw new UsageError(`${at}: tenant_id names an existing tenant, without name or plan`);
      }
      return () => entry(at, () => this.tenancy.view(id));
    }
    const plan = t.plan ?? 'enterprise';
    if (typeof plan !== 'string' || !isPlan(plan)) {
      throw new UsageError(`${at}.plan must be one of ${PLANS.join(', ')}`);
    }
    const name = text(t, 'name', at).trim();
    if (!name || name.length > 200) throw new UsageError(`${at}.name: 1..200 characters`);
    return () => entry(at, () => this.tenancy.create(name, plan));
  }

  private async tenant(t: Json, at: string): Promise<Json> {
    const makeTenant = this.tenantMaker(t, at);
    const clientsIn = list(t, 'clients', at);
    const patsIn = list(t, 'pats', at);
    const projectsIn = list(t, 'projects', at);
    const webhooksIn = list(t, 'webhooks', at);

    const tenant = await makeTenant();
    const tenantId = tenant.tenant_id;
    const clients = [];
    for (const [i, c] of clientsIn.entries()) {
      const where = `${at}.clients[${i}]`;
      const input = {
        name: text(c, 'name', where),
        scopes: scopes(c, where),
        allowedIps: strings(c, 'allowed_ips', where),
      };
      clients.push(await entry(where, () => this.credentials.createClient(tenantId, input)));
    }
    const pats = [];
    for (const [i, p] of patsIn.entries()) {
      const where = `${at}.pats[${i}]`;
      const days = p.expires_in_days;
      if (days !== undefined && typeof days !== 'number') {
        throw new UsageError(`${where}.expires_in_days must be a number`);
      }
      const input = {
        name: text(p, 'name', where),
        scopes: scopes(p, where),
        allowedIps: strings(p, 'allowed_ips', where),
        ...(days === undefined ? {} : { expiresInDays: days }),
      };
      pats.push(await entry(where, () => this.credentials.createPat(tenantId, input)));
    }
    const projects = [];
    for (const [i, p] of projectsIn.entries()) {
      projects.push(await this.project(tenantId, p, `${at}.projects[${i}]`));
    }
    const webhooks = [];
    for (const [i, w] of webhooksIn.entries()) {
      const dto = plainToInstance(CreateWebhookRequest, {
        name: w.name,
        endpoint_url: w.endpoint_url ?? w.url,
        events: w.events,
      });
      const errors = await validate(dto, { whitelist: true });
      if (errors.length) {
        throw new ValidationFailedError(
          errors.map((e) => ({
            field: `${at}.webhooks[${i}].${e.property}`,
            message: Object.values(e.constraints ?? {}).join('; '),
          })),
        );
      }
      webhooks.push(await entry(`${at}.webhooks[${i}]`, () => this.webhooks.create(tenantId, dto)));
    }
    return { ...tenant, clients, pats, projects, webhooks };
  }

  private async project(tenantId: number, p: Json, at: string): Promise<Json> {
    const name = text(p, 'name', at).trim();
    if (!name || name.length > 200) throw new UsageError(`${at}.name: 1..200 characters`);
    const description = optionalText(p, 'description', at);
    const docsIn = list(p, 'documents', at);
    const { projectId } = await entry(at, () =>
      this.projects.createProject(tenantId, { name, description }),
    );
    const documents = [];
    for (const [i, d] of docsIn.entries()) {
      const where = `${at}.documents[${i}]`;
      const title = text(d, 'title', where).trim();
      if (!title || title.length > 500) throw new UsageError(`${where}.title: 1..500 characters`);
      const content = d.content ?? {};
      if (!isObject(content)) throw new UsageError(`${where}.content must be a JSON object`);
      documents.push({
        title,
        ...(await entry(where, () =>
          this.documents.createDocument(tenantId, projectId, title, content),
        )),
      });
    }
    return { projectId, name, documents };
  }
}

@Command({
  name: 'fixture',
  description: 'test and demo fixtures in one call',
  subCommands: [FixtureApplyCommand],
})
export class FixtureCommand extends CommandGroup {}

export const FIXTURE_COMMANDS = [FixtureCommand, FixtureApplyCommand];
