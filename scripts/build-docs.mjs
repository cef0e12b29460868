// `npm run docs`: a static HTML reference of both OpenAPI documents, built with Redocly into
// docs-html/ (gitignored). Offline by design: no telemetry, no update check, and Redoc's scripts
// inlined in each page (--inlineBundle) instead of loaded from Redocly's CDN.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs-html');
const PAGES = [
  { spec: 'openapi.json', page: 'api.html', title: 'GRC Integration API' },
  { spec: 'openapi.platform.json', page: 'platform.html', title: 'GRC Platform API' },
];

// The only remote resource the inlined page still asks for: Redocly's attribution logo. An empty
// image stands in for it, so opening the page makes no request beyond its own file.
const REMOTE_LOGOS = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

mkdirSync(OUT, { recursive: true });
for (const { spec, page, title } of PAGES) {
  const output = join(OUT, page);
  const run = spawnSync(
    join(ROOT, 'node_modules/.bin/redocly'),
    ['build-docs', spec, '--inlineBundle', '--title', title, '--output', output],
    {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  if (run.status !== 0) {
    process.exitCode = run.status ?? 1;
    throw new Error(`redocly build-docs ${spec} failed (${run.error?.message ?? run.status})`);
  }
  const html = readFileSync(output, 'utf8').replace(REMOTE_LOGOS, EMPTY_SVG);
  if (/<script[^>]+\bsrc=["']https?:/i.test(html)) {
    throw new Error(`${page} loads a script from the network; the bundle must be inlined`);
  }
  writeFileSync(output, html);
}

writeFileSync(
  join(OUT, 'index.html'),
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>GRC Integration API reference</title></head>
<body>
<h1>GRC Integration API reference</h1>
<ul>
${PAGES.map(({ page, title, spec }) => `<li><a href="${page}">${title}</a> (${spec})</li>`).join('\n')}
</ul>
</body>
</html>
`,
);
console.log(`docs-html/: ${PAGES.map(({ page }) => page).join(', ')}, index.html`);
