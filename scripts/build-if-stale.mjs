// `npm start` builds only when a source file is newer than the last build, so a warm start does
// not pay for a type-check of the whole program (a few seconds on a small machine).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const stamp = 'dist/.tsbuildinfo.build';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const m = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

const sources = Math.max(
  newestMtime('src'),
  newestMtime('migrations'),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'].map(
    (f) => statSync(f).mtimeMs,
  ),
);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  execSync('npm run build --silent', { stdio: 'inherit' });
}
