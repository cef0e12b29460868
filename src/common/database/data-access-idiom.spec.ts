import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

/**
 * One data-access idiom (issue 38): data is read and written with typed `sql` statements run
 * through TenantTransactions; TypeORM describes the schema (entities), migrates it and checks
 * drift, and its query API is used nowhere else. The statement layer itself (this folder) is
 * where `repo` and `manager` are defined; it is not scanned.
 */
const ROOT = resolve(import.meta.dirname, '../../..');

/** TypeORM's query API: repositories, query builders, the entity manager. */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [/\.repo\s*\(/g, 'TenantTransactions.repo (a TypeORM repository)'],
  [/\bgetRepository\b/g, 'getRepository'],
  [/\bcreateQueryBuilder\b/g, 'createQueryBuilder'],
  [/\bInjectRepository\b/g, 'InjectRepository'],
  [/\.manager\b/g, 'an EntityManager (TenantTransactions.manager, DataSource.manager)'],
];

/**
 * Files that still use it, each with why. Remove an entry once its calls are statements: the
 * test fails while an entry names no call.
 */
const ALLOWED: string[] = [];

/** Comments blanked (line breaks kept, so positions still name the right line). */
function withoutComments(text: string): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, ' ');
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/^[ \t]*\/\/.*$/gm, blank);
}

/** `path:line: what` for each use of the query API in `text`. */
function findings(path: string, text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  for (const [pattern, what] of FORBIDDEN) {
    for (const match of code.matchAll(pattern)) {
      const line = code.slice(0, match.index).split('\n').length;
      found.push(`${path}:${line}: ${what}`);
    }
  }
  return found;
}

/** The source files of src/ outside the statement layer, specs excluded. */
function sources(): string[] {
  return readdirSync(resolve(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((file) => relative(ROOT, join(ROOT, 'src', file)))
    .filter((path) => /\.c?ts$/.test(path) && !/\.spec\.ts$|\.d\.c?ts$/.test(path))
    .filter((path) => !path.startsWith('src/common/database/'))
    .sort();
}

const allowed = (path: string): boolean => ALLOWED.some((prefix) => path.startsWith(prefix));

describe('one data-access idiom', () => {
  it('finds every form of the query API in a planted call', () => {
    const planted = `
      // this.tx.repo(Commented).findOneBy({ id }) is a comment, not a call
      const a = await this.tx.repo(Project).findOneBy({ id });
      const b = await this.tx
        .repo(Project)
        .findOne({ where: { id } });
      const c = this.dataSource.getRepository(Project).createQueryBuilder('p');
      const [, n] = await this.tx.manager.query(statement.text, statement.values);
      constructor(@InjectRepository(Project) private readonly projects: unknown) {}`;
    expect(findings('src/modules/x/x.repository.ts', planted)).toEqual([
      'src/modules/x/x.repository.ts:3: TenantTransactions.repo (a TypeORM repository)',
      'src/modules/x/x.repository.ts:5: TenantTransactions.repo (a TypeORM repository)',
      'src/modules/x/x.repository.ts:7: getRepository',
      'src/modules/x/x.repository.ts:7: createQueryBuilder',
      'src/modules/x/x.repository.ts:9: InjectRepository',
      'src/modules/x/x.repository.ts:8: an EntityManager (TenantTransactions.manager, DataSource.manager)',
    ]);
  });

  it('is used nowhere in src/ outside the statement layer but in the listed files', () => {
    const files = sources();
    // the scan reads the tree it means to (a wrong root would find nothing and pass)
    expect(files).toContain('src/modules/projects/projects.repository.ts');
    expect(files.length).toBeGreaterThan(100);
    const uses = files.flatMap((path) => findings(path, readFileSync(resolve(ROOT, path), 'utf8')));
    expect(uses.filter((use) => !allowed(use))).toEqual([]);
    // an exception that names no call any more is removed, not kept
    expect(ALLOWED.filter((prefix) => !uses.some((use) => use.startsWith(prefix)))).toEqual([]);
  });
});
