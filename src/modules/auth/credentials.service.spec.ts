import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ClientRow } from './auth.repository.js';

// the digest functions are wrapped so the spec sees every secret check the service makes
const actual = await import('../../common/crypto/tokens.js');
const digest = jest.fn(actual.digest);
const digestsEqual = jest.fn(actual.digestsEqual);
jest.unstable_mockModule('../../common/crypto/tokens.js', () => ({
  ...actual,
  digest,
  digestsEqual,
}));
const { CredentialsService } = await import('./credentials.service.js');
const { AuthRepository } = await import('./auth.repository.js');
const { mintToken } = actual;

type Row = ClientRow & { enabled: boolean };

/** A cache that keeps every non-null answer, as CredentialCache does while it listens. */
class MemoCache {
  readonly entries = new Map<string, unknown>();
  async get<V>(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = await load();
    if (value) this.entries.set(key, value);
    return value;
  }
}

/**
 * Issue 18 item 5: the token endpoint's answer time must not tell a known client id from an
 * unknown or disabled one. Not timed here (that would flake; bench/run.ts measures it): the work is
 * counted instead, and must be the same for all three.
 */
describe('CredentialsService.verifyClient does the same work whether the client exists', () => {
  const known = mintToken('gci');
  const disabled = mintToken('gci');
  const unknown = mintToken('gci');
  const secret = mintToken('gcs');
  const wrongSecret = mintToken('gcs');
  const row = (id: number, enabled: boolean): Row => ({
    id,
    tenant_id: 1,
    secret_digest: actual.digest(secret),
    scopes: ['projects:read'],
    allowed_ips: [],
    generation: '1',
    enabled,
  });
  const rows = new Map<string, Row>([
    [known, row(1, true)],
    [disabled, row(2, false)],
  ]);
  let queries: number;
  let service: InstanceType<typeof CredentialsService>;
  beforeEach(() => {
    queries = 0;
    const db = {
      query: async (_sql: string, [clientId]: [string]) => {
        queries += 1;
        // as the look-up's `AND enabled`
        const found = rows.get(clientId);
        return found?.enabled ? [found] : [];
      },
    };
    const repository = new AuthRepository(db as never, undefined as never);
    // bearer look-ups only: client verification never goes through the failure limit
    const failures = { lookUp: () => Promise.reject(new Error('not a bearer look-up')) };
    service = new CredentialsService(repository, new MemoCache() as never, failures as never);
    digest.mockClear();
    digestsEqual.mockClear();
  });

  async function work(clientId: string) {
    queries = 0;
    digest.mockClear();
    digestsEqual.mockClear();
    const first = await service.verifyClient(clientId, wrongSecret);
    const firstQueries = queries;
    const second = await service.verifyClient(clientId, wrongSecret);
    return {
      answers: [first, second],
      // the first look-up reaches the database, the second is answered from memory
      queries: [firstQueries, queries - firstQueries],
      digests: digest.mock.calls.length,
      comparisons: digestsEqual.mock.calls.length,
    };
  }

  it('a wrong secret, an unknown id and a disabled id cost the same', async () => {
    const expected = { answers: [null, null], queries: [1, 0], digests: 2, comparisons: 2 };
    expect(await work(known)).toEqual(expected);
    expect(await work(unknown)).toEqual(expected);
    expect(await work(disabled)).toEqual(expected);
  });

  it('the secret is compared as a 32-byte digest in every case', async () => {
    for (const clientId of [known, unknown, disabled]) {
      digestsEqual.mockClear();
      await service.verifyClient(clientId, wrongSecret, { fresh: true });
      const [[stored, given]] = digestsEqual.mock.calls as unknown as [[Buffer, Buffer]];
      expect({ stored: stored.length, given: given.length }).toEqual({ stored: 32, given: 32 });
    }
  });

  it('still verifies the right secret of a known client', async () => {
    expect(await service.verifyClient(known, secret)).toMatchObject({ id: 1, clientId: known });
  });
});
