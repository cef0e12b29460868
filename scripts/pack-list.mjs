// `npm pack` and `npm publish` run this after building: .npmrc keeps npm's log level at `error`
// (its engine warnings judge the machine's Node, not the pinned one), which also hides the list of
// files npm puts in the tarball. This prints that list to stderr, as npm's own notice would.
import { execFileSync } from 'node:child_process';

const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
const lines = packed.files.map((f) => `${String(f.size).padStart(9)}  ${f.path}`);
process.stderr.write(
  `Tarball Contents (${packed.files.length} files, ${packed.unpackedSize} bytes unpacked)\n` +
    `${lines.join('\n')}\n${packed.filename}\n`,
);
