import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import { CommandRunner, Option } from './cli-command.js';
import { AppError } from '../http/app-error.js';

/**
 * Where one command's output goes: the process's stdout/stderr and exit code for `cli.js`, or a
 * buffer when the running service answers a command on its admin socket.
 */
export interface CliSink {
  argv: readonly string[];
  /** The caller's working directory: file arguments are relative to it. */
  cwd: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

const sinks = new AsyncLocalStorage<CliSink>();

/** Runs `work` with every CLI write and exit code captured in `sink`. */
export function withCliSink<T>(sink: CliSink, work: () => Promise<T>): Promise<T> {
  return sinks.run(sink, work);
}

export function writeOut(text: string): void {
  const sink = sinks.getStore();
  if (sink) sink.stdout += text;
  else process.stdout.write(text);
}

export function writeErr(text: string): void {
  const sink = sinks.getStore();
  if (sink) sink.stderr += text;
  else process.stderr.write(text);
}

export function setExitCode(code: number): void {
  const sink = sinks.getStore();
  if (sink) sink.exitCode = code;
  else process.exitCode = code;
}

/** A file argument of the command being run, resolved against its caller's directory. */
export function resolveCliPath(path: string): string {
  return resolve(sinks.getStore()?.cwd ?? process.cwd(), path);
}

/** The invocation being run: its sink, or the process when the CLI runs on its own. */
const PROCESS_INVOCATION = {};
const invocation = (): object => sinks.getStore() ?? PROCESS_INVOCATION;

/**
 * The values a repeatable option was given, for the invocation being run. Kept per invocation, not
 * in a field of the command object: the service's admin socket runs every call on the same command
 * objects, and a field would carry one call's values (another tenant's entitlements or address
 * ranges, a typo) into every later call.
 */
export class RepeatedOption<T> {
  private readonly values = new WeakMap<object, T[]>();

  add(value: T): void {
    const key = invocation();
    const values = this.values.get(key);
    if (values) values.push(value);
    else this.values.set(key, [value]);
  }

  /** In command-line order; empty when the option was not given. */
  given(): readonly T[] {
    return this.values.get(invocation()) ?? [];
  }
}

/** The command line of the command being run. */
export function commandLine(): readonly string[] {
  return sinks.getStore()?.argv ?? process.argv;
}

export interface JsonOption {
  json?: boolean;
}

/** A wrong or missing argument: a clear message and exit code 2. */
export class UsageError extends Error {}

/**
 * One invocation runs one command, so `--json` anywhere on the line selects the output mode
 * (commander hands an option declared on a shared base class to the subclass unreliably).
 */
function jsonMode(options: JsonOption): boolean {
  return options.json === true || commandLine().includes('--json');
}

/** Prints exactly one JSON object on stdout (compact with --json, indented otherwise). */
export function print(result: object, options: JsonOption): void {
  writeOut(`${JSON.stringify(result, null, jsonMode(options) ? undefined : 2)}\n`);
}

export function printError(code: string, message: string, options: JsonOption): void {
  const body = { error: { code, message } };
  if (jsonMode(options)) writeOut(`${JSON.stringify(body)}\n`);
  else writeErr(`error (${code}): ${message}\n`);
}

/**
 * Runs one command body: the result on stdout, or an error object and exit code 1 (2 for usage).
 * Unexpected errors are reported without internals.
 */
export async function runCommand(options: JsonOption, work: () => Promise<object>): Promise<void> {
  try {
    print(await work(), options);
  } catch (err) {
    if (err instanceof UsageError) {
      printError('usage', err.message, options);
      setExitCode(2);
    } else if (err instanceof AppError) {
      printError(err.code, err.message, options);
      setExitCode(1);
    } else {
      const message = err instanceof Error ? err.message : String(err);
      printError('internal_error', message, options);
      setExitCode(1);
    }
  }
}

/** Base of every leaf command: `--json` everywhere. */
export abstract class JsonCommand extends CommandRunner {
  @Option({ flags: '--json', description: 'print exactly one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }
}

/** Base of a leaf command whose body returns the object to print (see `runCommand`). */
export abstract class ResultCommand<O extends JsonOption> extends JsonCommand {
  protected abstract result(options: O, params: string[]): Promise<object>;

  async run(params: string[], options: O): Promise<void> {
    await runCommand(options, () => this.result(options, params));
  }
}

/** Base of a command group (`tenant`, `client`, …): only its subcommands do anything. */
export abstract class CommandGroup extends JsonCommand {
  async run(params: string[]): Promise<void> {
    throw new UsageError(
      params.length
        ? `unknown command '${params.join(' ')}' for '${this.command.name()}'`
        : `'${this.command.name()}' needs a subcommand; see --help`,
    );
  }
}
