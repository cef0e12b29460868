import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const key = randomBytes(32).toString('base64');

  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('whsec_secret');
    expect(sealed.toString('utf8')).not.toContain('whsec_secret');
    expect(box.open(sealed)).toBe('whsec_secret');
  });

  it('refuses tampered ciphertext and a wrong key', () => {
    const sealed = new SecretBox(key).seal('whsec_secret');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => new SecretBox(key).open(tampered)).toThrow();
    expect(() => new SecretBox(randomBytes(32).toString('base64')).open(sealed)).toThrow();
  });
});
