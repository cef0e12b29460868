import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The Node/V8 flags `npm start` runs the service with (package.json's `start` script): the
 * benchmark starts the service with the same ones, so it measures what is deployed.
 */
export function startScriptFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return nodeFlagsOf(pkg.scripts['start'] ?? '');
}

/** The `--flags` of a `node <flags…> <script>` command line. */
export function nodeFlagsOf(command: string): string[] {
  const [node, ...rest] = command.trim().split(/\s+/);
  if (node !== 'node') throw new Error(`not a node command line: ${command}`);
  const flags: string[] = [];
  for (const word of rest) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
