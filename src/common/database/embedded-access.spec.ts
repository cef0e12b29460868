import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { parse } from 'pg-connection-string';
import {
  embeddedSecretsFile,
  embeddedSocketDir,
  ensureEmbeddedSecrets,
  embeddedListener,
  pgHba,
  prepareListener,
  serverUrl,
} from './embedded-access.js';

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('the embedded PostgreSQL’s access files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grc-access-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes two random passwords once, 0600, and keeps them', async () => {
    const first = await ensureEmbeddedSecrets(dir);
    expect(first.superuser).toMatch(/^[\w-]{32}$/);
    expect(first.service).toMatch(/^[\w-]{32}$/);
    expect(first.superuser).not.toBe(first.service);
    expect(await modeOf(embeddedSecretsFile(dir))).toBe(0o600);
    await chmod(embeddedSecretsFile(dir), 0o644);
    expect(await ensureEmbeddedSecrets(dir)).toEqual(first);
    expect(await modeOf(embeddedSecretsFile(dir))).toBe(0o600);
  });

  it('refuses a file that is not its own', async () => {
    await writeFile(embeddedSecretsFile(dir), '{"superuser":1}\n', { mode: 0o600 });
    await expect(ensureEmbeddedSecrets(dir)).rejects.toThrow(/not a passwords file/);
  });

  it('makes the socket directory 0700, tightening one that exists', async () => {
    const listener = embeddedListener(dir, 5432);
    expect(listener).toEqual({ kind: 'socket', dir: embeddedSocketDir(dir) });
    await prepareListener(listener);
    expect(await modeOf(embeddedSocketDir(dir))).toBe(0o700);
    await chmod(embeddedSocketDir(dir), 0o755);
    await prepareListener(listener);
    expect(await modeOf(embeddedSocketDir(dir))).toBe(0o700);
    expect(pgHba(listener)).toMatch(/^local all all scram-sha-256$/m);
    expect(pgHba(listener)).not.toMatch(/^host|trust|password$/m);
  });

  it('listens on loopback TCP, a password still required, when the socket path is too long', () => {
    // the socket's path would be 108 bytes, one more than a Unix socket takes
    const deep = join('/', 'x'.repeat(108 - '//pg-socket/.s.PGSQL.5432'.length));
    expect(`${embeddedSocketDir(deep)}/.s.PGSQL.5432`).toHaveLength(108);
    const listener = embeddedListener(deep, 5432);
    expect(listener).toEqual({ kind: 'tcp', host: '127.0.0.1' });
    expect(pgHba(listener)).toMatch(/^host all all 127\.0\.0\.1\/32 scram-sha-256$/m);
    expect(pgHba(listener)).not.toMatch(/^local|trust|password$/m);
    expect(embeddedListener(deep.slice(0, -1), 5432).kind).toBe('socket');
  });

  it('writes socket URLs node-postgres reads back as the socket directory', () => {
    const url = serverUrl('/tmp/a dir/pg-socket', 41234, 'grc_service', 'p-w_d');
    expect(parse(url)).toMatchObject({
      host: '/tmp/a dir/pg-socket',
      port: '41234',
      user: 'grc_service',
      password: 'p-w_d',
      database: 'grc',
    });
  });
});
