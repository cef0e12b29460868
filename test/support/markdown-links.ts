import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A relative link of a Markdown file that does not resolve, with where it was written. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** Every `*.md` file under `dir`, recursively (no node_modules). */
export function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Lines outside fenced code blocks, with inline code spans blanked (links there are text). */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      if (fence === undefined) fence = opening[1]![0]!;
      else if (opening[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line: index + 1, text: raw.replace(/`+[^`]*`+/g, '``') });
  });
  return out;
}

/** GitHub's anchor of a heading: its text without markup, lower case, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file defines: one per heading (repeats numbered as GitHub does). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of text.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      if (fence === undefined) fence = opening[1]![0]!;
      else if (opening[1]![0] === fence) fence = undefined;
      continue;
    }
    const heading = fence === undefined && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const base = headingAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * The relative links (`[text](target)`, `[text](target#anchor)`, `[text](#anchor)`) of `files` that
 * do not resolve: a missing file or directory, or an anchor no heading of the Markdown file makes.
 * Links with a scheme (`https:`, `mailto:`) are not followed.
 */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const { line, text: prose } of proseLines(text)) {
      for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const path = pathPart === '' ? file : resolve(dirname(file), decodeURI(pathPart));
        const where = { file: relative(root, file), line, target };
        if (!existsSync(path)) {
          broken.push({ ...where, reason: 'no such file' });
          continue;
        }
        if (anchor === undefined || !path.endsWith('.md') || statSync(path).isDirectory()) continue;
        if (!anchorsOf(readFileSync(path, 'utf8')).has(anchor)) {
          broken.push({ ...where, reason: `no heading makes #${anchor}` });
        }
      }
    }
  }
  return broken;
}
