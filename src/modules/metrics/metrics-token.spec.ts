import { describe, expect, it } from '@jest/globals';
import { carriesMetricsToken } from './metrics-token.js';

const TOKEN = 'm3tr1cs-t0ken-0123456789';

describe('carriesMetricsToken', () => {
  it('takes the token in a Bearer header, the scheme in any case', () => {
    expect(carriesMetricsToken(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(carriesMetricsToken(`bearer ${TOKEN}`, TOKEN)).toBe(true);
  });

  it('refuses anything else', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer ${TOKEN} ${TOKEN}`,
    ]) {
      expect({ header, ok: carriesMetricsToken(header, TOKEN) }).toEqual({ header, ok: false });
    }
  });
});
