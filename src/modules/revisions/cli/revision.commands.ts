import { Command, Option, SubCommand } from 'nest-commander';
import {
  CommandGroup,
  JsonCommand,
  positiveInt,
  runCommand,
  UsageError,
} from '../../../common/cli/cli-output.js';
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
    if (!o.revision) throw new UsageError('--revision is required');
    const revisionId = positiveInt('revision', o.revision);
    const by = o.by?.trim();
    if (!by) throw new UsageError('--by is required (the platform user who decides)');
    return work(revisionId, by, o.note);
  });
}

/** The options both decisions take; nest-commander reads them from each leaf class. */
abstract class DecisionCommand extends JsonCommand {
  @Option({ flags: '--revision <id>', description: 'the candidate revision id' })
  parseRevision(v: string): string {
    return v;
  }

  @Option({ flags: '--by <user>', description: 'who decides (stored as decided_by)' })
  parseBy(v: string): string {
    return v;
  }

  @Option({ flags: '--note <text>', description: 'optional note (stored as decision_note)' })
  parseNote(v: string): string {
    return v;
  }
}

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
