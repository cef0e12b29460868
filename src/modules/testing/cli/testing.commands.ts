import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import { CommandGroup, ResultCommand, UsageError } from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  positiveInt,
  requiredOption,
  requiredPositiveInt,
  tenantOption,
} from '../../../common/cli/cli-options.js';
import type { EventData } from '../../events/event-catalog.js';
import { EVENT_TYPES, type EventType, isEventType } from '../../events/event-types.js';
import { TestingService } from '../testing.service.js';

interface TestingOptions {
  json?: boolean;
  tenants?: string;
  tenant?: string;
  type?: string;
  data?: string;
}

@SubCommand({
  name: 'reset',
  description:
    "empty every tenant's data, or these tenants' (the tenants and the audit trail stay)",
})
@CliOptions({ flags: '--tenants <ids>', description: 'comma-separated tenant ids; default: all' })
export class TestingResetCommand extends ResultCommand<TestingOptions> {
  constructor(private readonly testing: TestingService) {
    super();
  }

  protected result(o: TestingOptions): Promise<object> {
    // given but empty (`--tenants "$IDS"` with nothing in IDS) must not mean every tenant
    if (o.tenants !== undefined && o.tenants.trim() === '') {
      throw new UsageError('--tenants must name at least one tenant id');
    }
    const ids = o.tenants ? o.tenants.split(',').map((id) => positiveInt('tenants', id)) : [];
    return this.testing.reset(ids);
  }
}

@SubCommand({ name: 'emit', description: 'publish a catalog event through the outbox' })
@CliOptions(
  tenantOption(),
  { flags: '--type <type>', description: EVENT_TYPES.join(' | ') },
  { flags: '--data <json>', description: "the event's data, a JSON object" },
)
export class TestingEmitCommand extends ResultCommand<TestingOptions> {
  constructor(private readonly testing: TestingService) {
    super();
  }

  protected result(o: TestingOptions): Promise<object> {
    const tenantId = requiredPositiveInt('tenant', o.tenant);
    const type = requiredOption('type', o.type);
    if (!isEventType(type)) throw new UsageError(`--type must be one of ${EVENT_TYPES.join(', ')}`);
    return this.testing.emit(tenantId, type, jsonObject(o.data) as EventData<EventType>);
  }
}

/** The data is the caller's (the kit types it from the catalog); it must be one JSON object. */
function jsonObject(text: string | undefined): object {
  let value: unknown;
  try {
    value = JSON.parse(requiredOption('data', text));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError('--data must be JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--data must be a JSON object');
  }
  return value;
}

@Command({
  name: 'testing',
  description: 'for the testing kit only (TESTING_COMMANDS=true): reset, emit',
  subCommands: [TestingResetCommand, TestingEmitCommand],
})
export class TestingCommand extends CommandGroup {}

export const TESTING_COMMANDS = [TestingCommand, TestingResetCommand, TestingEmitCommand];
