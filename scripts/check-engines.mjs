// npm checks `engines` against the Node that runs npm (the machine's), and its warnings are off in
// .npmrc for that reason. This checks every locked package against the Node the project runs on:
// npm scripts run on the pinned `node` devDependency, so `process.version` is that one.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const failures = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  const range = entry.engines?.node;
  if (typeof range !== 'string' || entry.optional) continue;
  if (!semver.satisfies(process.version, range, { includePrerelease: true })) {
    failures.push(`${path || 'the project'}: node ${range}`);
  }
}
if (failures.length > 0) {
  process.stderr.write(`Node ${process.version} does not satisfy:\n  ${failures.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`engines: every locked package accepts Node ${process.version}\n`);
