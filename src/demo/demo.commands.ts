import { Command, SubCommand } from '../common/cli/cli-command.js';
import { CommandGroup, type JsonOption, ResultCommand } from '../common/cli/cli-output.js';
import { DemoSeedService } from './demo-seed.service.js';

@SubCommand({
  name: 'seed',
  description:
    'create a demo tenant (enterprise), a client with every scope, projects and documents',
})
export class DemoSeedCommand extends ResultCommand<JsonOption> {
  constructor(private readonly demo: DemoSeedService) {
    super();
  }

  protected result(): Promise<object> {
    return this.demo.seed();
  }
}

@Command({ name: 'demo', description: 'demo data', subCommands: [DemoSeedCommand] })
export class DemoCommand extends CommandGroup {}

export const DEMO_COMMANDS = [DemoCommand, DemoSeedCommand];
