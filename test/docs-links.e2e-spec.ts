import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { anchorsOf, brokenLinks, markdownFiles } from './support/markdown-links.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Guides of docs/operators/ written on other branches (observability, Kubernetes): the index links
 * them already. Only a missing file is excused; once a file exists its anchors are checked.
 */
describe('documentation links', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'grc-doc-links-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('every relative link and #anchor of README.md and docs/**/*.md resolves', () => {
    const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
    expect(files.length).toBeGreaterThan(20);
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it('no tracked file names the design notes the repository does not have', () => {
    // written apart, so this file does not name them itself
    const absent = ['CONTRACT', 'SPEC'].map((n) => `${n}.md`);
    expect(absent.filter((f) => existsSync(join(ROOT, f)))).toEqual([]);
    // README, docs, sources (and so the built package and its declarations), OpenAPI documents
    let named = '';
    try {
      named = execFileSync('git', ['grep', '-l', '-I', '-F', ...absent.flatMap((f) => ['-e', f])], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    } catch (err) {
      // git grep exits 1 when nothing matches
      if ((err as { status?: number }).status !== 1) throw err;
    }
    expect(named.split('\n').filter(Boolean)).toEqual([]);
  });

  it('the OpenAPI documents (and so Swagger UI) name only Markdown files the repository has', () => {
    for (const doc of ['openapi.json', 'openapi.platform.json']) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const named = [...text.matchAll(/[\w./-]+\.md\b/g)].map((m) => m[0]);
      expect(named.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
    }
  });

  it('keeps README.md a front page of at most 300 lines, the guides in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain('](docs/README.md)');
  });

  it('finds a missing file, a missing anchor and a missing directory, and not links in code', () => {
    mkdirSync(join(scratch, 'guides'));
    writeFileSync(join(scratch, 'guides/a.md'), '# A guide\n\n## Stage a `candidate`: POST\n');
    writeFileSync(
      join(scratch, 'README.md'),
      [
        '[ok](guides/a.md) [ok](guides/a.md#stage-a-candidate-post) [ok](guides) [ok](#top)',
        '[web](https://example.com/x.md) `[code](nowhere.md)`',
        '```md',
        '[fenced](nowhere.md)',
        '```',
        '[gone](guides/b.md) [bad anchor](guides/a.md#stage) [gone dir](nothing/)',
        '# Top',
      ].join('\n'),
    );
    const broken = brokenLinks(scratch, [join(scratch, 'README.md')]);
    expect(broken.map(({ line, target, reason }) => [line, target, reason])).toEqual([
      [6, 'guides/b.md', 'no such file'],
      [6, 'guides/a.md#stage', 'no heading makes #stage'],
      [6, 'nothing/', 'no such file'],
    ]);
  });

  it("makes GitHub's anchors, numbering repeated headings", () => {
    const anchors = anchorsOf(
      '# Errors\n## Token: `POST /oauth/token`\n## Errors\n### 9.1 One webhook\n',
    );
    expect([...anchors]).toEqual(['errors', 'token-post-oauthtoken', 'errors-1', '91-one-webhook']);
  });
});
