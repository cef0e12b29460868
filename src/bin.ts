#!/usr/bin/env node
// `grc-integration-api serve | migrate | <administration command>`: the package's one command.
const [command] = process.argv.slice(2);

if (command === 'serve') {
  process.argv.splice(2, 1);
  await import('./main.js');
} else if (command === 'migrate') {
  process.argv.splice(2, 1);
  await import('./migrate-cli.js');
} else if (command === undefined) {
  process.stdout.write(
    [
      'usage: grc-integration-api serve                 run the service (see .env.example)',
      '       grc-integration-api migrate               apply migrations to DATABASE_URL',
      '       grc-integration-api <command> [--json]    an administration command (--help lists them)',
      '',
    ].join('\n'),
  );
} else {
  await import('./cli.js');
}
