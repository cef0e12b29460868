import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
