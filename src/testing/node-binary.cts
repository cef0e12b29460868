import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The service's `engines.node`. */
export const MIN_NODE_MAJOR = 24;

const INSTALL_HINT =
  `Run your tests on Node ${MIN_NODE_MAJOR} or later, or install it beside them for the service ` +
  `alone: \`npm install --save-dev node@${MIN_NODE_MAJOR}\` (the \`node\` package), or give ` +
  '`startIntegrationApi({ node: "/path/to/node" })`.';

const major = (version: string): number => Number(version.split('.')[0]);

/** The version `node` reports, or why it cannot run (asked with a short timeout: never a hang). */
function versionOf(node: string): Promise<string> {
  try {
    if (!statSync(node).isFile()) return Promise.reject(new Error(`${node} is not a file`));
    accessSync(node, constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return Promise.reject(
      new Error(code === 'ENOENT' ? `${node} does not exist` : `${node} is not executable`),
    );
  }
  return new Promise((ok, fail) => {
    execFile(node, ['-p', 'process.versions.node'], { timeout: 10_000, env: {} }, (err, stdout) => {
      const version = stdout.trim();
      if (err || !/^\d+\.\d+\.\d+/.test(version)) {
        fail(new Error(`${node} did not answer as a Node.js binary`));
      } else ok(version);
    });
  });
}

/** The `node` package's binary (it installs a real one at node_modules/node/bin/node). */
function nodePackageBinaries(from: readonly string[]): string[] {
  const found: string[] = [];
  for (const base of from) {
    try {
      const manifest = require.resolve('node/package.json', { paths: [base] });
      const binary = join(dirname(manifest), 'bin', 'node');
      if (!found.includes(binary)) found.push(binary);
    } catch {
      // not installed from there
    }
  }
  return found;
}

/**
 * The Node that runs the service: `given` (checked: it exists, runs, and is new enough), else
 * this process's own when it is new enough, else the `node` package's binary from the consumer's
 * or this package's `node_modules`. Fails at once, saying what to install, when there is none.
 */
export async function serviceNode(given: string | undefined, packageDir: string): Promise<string> {
  if (given !== undefined) {
    const version = await versionOf(given).catch((err: Error) => {
      throw new Error(`the \`node\` option cannot run the service: ${err.message}`);
    });
    if (major(version) < MIN_NODE_MAJOR) {
      throw new Error(
        `the \`node\` option is Node ${version}; the service needs Node >= ${MIN_NODE_MAJOR}`,
      );
    }
    return given;
  }
  if (major(process.versions.node) >= MIN_NODE_MAJOR) return process.execPath;
  for (const candidate of nodePackageBinaries([process.cwd(), packageDir])) {
    const version = await versionOf(candidate).catch(() => '0');
    if (major(version) >= MIN_NODE_MAJOR) return candidate;
  }
  throw new Error(
    `grc-integration-api needs Node >= ${MIN_NODE_MAJOR} to run the service; this is Node ` +
      `${process.versions.node} and no \`node\` package of version ${MIN_NODE_MAJOR} or later is ` +
      `installed. ${INSTALL_HINT}`,
  );
}
