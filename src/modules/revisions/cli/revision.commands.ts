import { Command, SubCommand } from '../../../common/cli/cli-command.js';
import {
  CommandGroup,
  JsonCommand,
  runCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
import {
  CliOptions,
  requiredPositiveInt,
  revisionOption,
} from '../../../common/cli/cli-options.js';
import type { RevisionDecisionResult } from '../dto/revision.response.js';
import { RevisionDecisionService } from '../revision-decision.service.js';

interface DecisionOptions {
  json?: boolean;
  revision?: string;
  by?: string;
  note?: string;
}

type Decide = (revisionId: number, by: string, note?: string) => Promise<RevisionDecisionResult>;

function decide(o: DecisionOptions, work: Decide): Promise<void> {
  return runCommand(o, () => {
    const revisionId = requiredPositiveInt('revision', o.revision);
    const by = o.by?.trim();
    if (!by) throw new UsageError('--by is required (the platform user who decides)');
    return work(revisionId, by, o.note);
  });
}

/** The options both decisions take; each leaf class has them. */
@CliOptions(
  revisionOption('the candidate revision id'),
  { flags: '--by <user>', description: 'who decides (stored as decided_by)' },
  { flags: '--note <text>', description: 'optional note (stored as decision_note)' },
)
abstract class DecisionCommand extends JsonCommand {}

@SubCommand({
  name: 'accept',
  description: 'accept a staged candidate: creates the next document version from it',
})
export class RevisionAcceptCommand extends DecisionCommand {
  constructor(private readonly decisions: RevisionDecisionService) {
    super();
  }

  async run(_: string[], o: DecisionOptions): Promise<void> {
    await decide(o, (id, by, note) => this.decisions.accept(id, by, note));
  }
}

@SubCommand({ name: 'reject', description: 'reject a staged candidate' })
export class RevisionRejectCommand extends DecisionCommand {
  constructor(private readonly decisions: RevisionDecisionService) {
    super();
  }

  async run(_: string[], o: DecisionOptions): Promise<void> {
    await decide(o, (id, by, note) => this.decisions.reject(id, by, note));
  }
}

@Command({
  name: 'revision',
  description: 'decide on candidate external revisions (the platform side, never the API)',
  subCommands: [RevisionAcceptCommand, RevisionRejectCommand],
})
export class RevisionCommand extends CommandGroup {}

export const REVISION_COMMANDS = [RevisionCommand, RevisionAcceptCommand, RevisionRejectCommand];
