import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/**
 * AES-256-GCM for secrets the service must read back (webhook signing secrets). Layout:
 * version byte, 12-byte IV, 16-byte tag, ciphertext. The version byte leaves room for key rotation.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length !== 32) throw new Error('secret box key must be 32 bytes');
  }

  seal(plaintext: string): Buffer {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    if (sealed[0] !== VERSION) throw new Error('unknown secret box version');
    const iv = sealed.subarray(1, 1 + IV_LENGTH);
    const tag = sealed.subarray(1 + IV_LENGTH, 1 + IV_LENGTH + TAG_LENGTH);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_LENGTH + TAG_LENGTH)),
      decipher.final(),
    ]).toString('utf8');
  }
}
