import { Option } from './cli-command.js';
import { UsageError } from './cli-output.js';

/** An option whose value a command reads as given (the text after the flag). */
export interface CliOption {
  flags: string;
  description?: string;
}

function option(flags: string, description: string | undefined): CliOption {
  return description === undefined ? { flags } : { flags, description };
}

// The identity options: which tenant, project, credential or revision a command acts on.
export const tenantOption = (description?: string): CliOption =>
  option('--tenant <id>', description);
export const projectOption = (description?: string): CliOption =>
  option('--project <id>', description);
export const revisionOption = (description?: string): CliOption =>
  option('--revision <id>', description);
export const clientOption = (description?: string): CliOption =>
  option('--client <client_id>', description);
export const patOption = (description?: string): CliOption => option('--pat <id>', description);

/** `--media-type <type>` -> `parseMediaType`: the method that parses it. */
function parserName(flags: string): string {
  const long = /--([a-z][a-z0-9-]*)/.exec(flags)?.[1];
  if (!long) throw new Error(`CLI option without a long flag: ${flags}`);
  return `parse${long.replace(/(^|-)([a-z0-9])/g, (_, __: string, c: string) => c.toUpperCase())}`;
}

/**
 * Declares options whose value the command takes as given, instead of one
 * `@Option(…) parseX(v) { return v; }` method per option. Options are decorated prototype
 * methods (see cli-command.ts), so each gets one; they come first, in the order listed, and the
 * class's own `@Option` methods (parsers that do more, e.g. repeatable options) follow in theirs.
 */
export function CliOptions(...options: CliOption[]): ClassDecorator {
  return (target) => {
    const proto = target.prototype as Record<string, unknown>;
    const own = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor');
    const ownDescriptors = own.map((n) => [n, Object.getOwnPropertyDescriptor(proto, n)] as const);
    for (const name of own) delete proto[name];
    for (const o of options) {
      const name = parserName(o.flags);
      if (own.includes(name)) throw new Error(`${target.name}.${name} is declared twice`);
      // a function per option: an option's metadata is kept on its function
      const descriptor: PropertyDescriptor = {
        value: (v: string): string => v,
        writable: true,
        configurable: true,
      };
      Object.defineProperty(proto, name, descriptor);
      Option(o)(proto, name, descriptor);
    }
    for (const [name, descriptor] of ownDescriptors) {
      if (descriptor) Object.defineProperty(proto, name, descriptor);
    }
  };
}

/** Parses a positive integer option or throws a usage error naming it. */
export function positiveInt(name: string, value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    throw new UsageError(`--${name} must be a positive integer`);
  }
  return Number(value);
}

/** The value of a required option; missing or empty: `--<name> is required`. */
export function requiredOption(name: string, value: string | undefined): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** As requiredOption, and only blanks counts as missing too. */
export function requiredNonBlankOption(name: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** A required positive integer option (an id): `--<name> is required`, or must be a positive integer. */
export function requiredPositiveInt(name: string, value: string | undefined): number {
  return positiveInt(name, requiredOption(name, value));
}

/** An optional positive integer option: undefined when absent or empty. */
export function optionalPositiveInt(name: string, value: string | undefined): number | undefined {
  return value ? positiveInt(name, value) : undefined;
}

/** A required text option, trimmed, of 1..max characters. */
export function requiredText(name: string, value: string | undefined, max: number): string {
  const v = value?.trim();
  if (!v || v.length > max) throw new UsageError(`--${name} is required (1..${max} characters)`);
  return v;
}
