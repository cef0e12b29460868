import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

function startScript(root: string): string {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return pkg.scripts['start'] ?? '';
}

/**
 * The Node/V8 flags `npm start` runs the service with (package.json's `start` script): the
 * benchmark starts the service with the same ones, so it measures what is deployed.
 */
export function startScriptFlags(root: string): string[] {
  return nodeFlagsOf(startScript(root));
}

/**
 * The environment `npm start` sets for the service (`NAME=value` before `node`: glibc's malloc
 * settings, read only when a process starts); the benchmark and the chaos tests add it too.
 */
export function startScriptEnv(root: string): Record<string, string> {
  return envOf(startScript(root));
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/;

/** The leading `NAME=value` assignments of a command line. */
export function envOf(command: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of command.trim().split(/\s+/)) {
    const m = ASSIGNMENT.exec(word);
    if (!m) break;
    env[m[1]!] = m[2]!;
  }
  return env;
}

/** The `--flags` of a `[NAME=value…] node <flags…> <script>` command line. */
export function nodeFlagsOf(command: string): string[] {
  const words = command.trim().split(/\s+/);
  const [node, ...rest] = words.slice(words.findIndex((word) => !ASSIGNMENT.test(word)));
  if (node !== 'node') throw new Error(`not a node command line: ${command}`);
  const flags: string[] = [];
  for (const word of rest) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
