import type { Command as CommanderCommand } from 'commander';

/**
 * The CLI's command declarations: a command is a Nest provider (so it gets the services it calls
 * injected) whose class carries its name, description and subcommands, and whose methods decorated
 * with `@Option` parse its options. src/cli/command-tree.ts turns them into a commander tree, one
 * per invocation. (Our own few lines instead of nest-commander: that package pins a discovery
 * library that wants the previous NestJS major, which breaks `npm install` of this package.)
 */

/** Where the service instances come from: the booted Nest application context. */
export type CommandClass = abstract new (...args: never[]) => CommandRunner;

export interface CommandMeta {
  name: string;
  description?: string;
  /** Leaf commands of a group; each is a `@SubCommand` class. */
  subCommands?: CommandClass[];
}

export interface OptionMeta {
  flags: string;
  description?: string;
}

const commands = new WeakMap<object, CommandMeta>();
/** Kept on the parser function itself, so a prototype method may be replaced by another one. */
const options = new WeakMap<object, OptionMeta>();

/** A top-level command (`tenant`, `client`, …). */
export function Command(meta: CommandMeta): ClassDecorator {
  return (target) => {
    commands.set(target, meta);
  };
}

/** A leaf command under a `@Command` group (`tenant create`, …). */
export const SubCommand = Command;

/** An option of the command; the method parses its value (commander's argParser). */
export function Option(meta: OptionMeta): MethodDecorator {
  return (_target, _name, descriptor) => {
    if (typeof descriptor.value !== 'function') throw new Error(`@Option on a non-method`);
    options.set(descriptor.value, meta);
  };
}

export function commandMeta(target: object): CommandMeta {
  const meta = commands.get(target);
  if (!meta) throw new Error(`${String((target as { name?: string }).name)} is not a command`);
  return meta;
}

/** A command's options with their parsers: its own class first, then its bases', in order. */
export function optionsOf(
  instance: object,
): Array<OptionMeta & { parse: (value: string, previous: unknown) => unknown }> {
  const found: Array<OptionMeta & { parse: (value: string, previous: unknown) => unknown }> = [];
  const seen = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const method = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      const meta = typeof method === 'function' ? options.get(method) : undefined;
      if (!meta || typeof method !== 'function') continue;
      found.push({
        ...meta,
        parse: (value, previous) =>
          (method as (v: string, p: unknown) => unknown).call(instance, value, previous),
      });
    }
  }
  return found;
}

/** Base of every command: `run` gets the positional arguments and the parsed options. */
export abstract class CommandRunner {
  /** The commander command of the invocation being run (set before it runs). */
  protected command!: CommanderCommand;

  setCommand(command: CommanderCommand): void {
    this.command = command;
  }

  abstract run(params: string[], options?: object): Promise<void>;
}
