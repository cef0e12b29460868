import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 43; // 62^43 > 2^256
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32

export type TokenPrefix = 'gci' | 'gcs' | 'gat' | 'gpat' | 'glk' | 'gpk';

function toBase62(value: bigint, length: number): string {
  let out = '';
  let n = value;
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

/** Base62 of the CRC-32, in number arithmetic (it is checked on every authenticated request). */
function checksum(body: string): string {
  let n = crc32(body) >>> 0;
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(CHECKSUM_LENGTH, '0');
}

/**
 * `<prefix>_<43 base62 chars of 256 random bits><6 base62 chars of CRC-32>`: recognisable by
 * secret scanners and checkable offline, so a mistyped token is refused without a database trip.
 */
export function mintToken(prefix: TokenPrefix): string {
  const random = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), RANDOM_LENGTH);
  const body = `${prefix}_${random}`;
  return body + checksum(body);
}

const TOKEN_SHAPE = /^(gci|gcs|gat|gpat|glk|gpk)_[0-9A-Za-z]{49}$/;

/** True when the token has the shape and checksum of one minted with `prefix`. */
export function isWellFormedToken(token: string, prefix: TokenPrefix): boolean {
  if (!TOKEN_SHAPE.test(token) || !token.startsWith(`${prefix}_`)) return false;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === token.slice(-CHECKSUM_LENGTH);
}

/** SHA-256 is right for 256-bit random secrets: there is nothing to brute-force. */
export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
