import { isUtf8 } from 'node:buffer';
import type { FieldError } from './app-error.js';
import { memberPath, walkJson } from './json-walk.js';

/**
 * Text the service cannot keep as sent: PostgreSQL's `text` and `jsonb` refuse U+0000, and a lone
 * UTF-16 surrogate (from a JSON `\ud800` escape) is no Unicode character at all: it cannot be
 * written as UTF-8, so it would be stored, hashed or answered as something else. Refused with a
 * message that says which; null for text that is fine.
 */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    return `must be valid Unicode: it contains a lone surrogate (U+${unit}), which no UTF-8 text can hold`;
  }
  return null;
}

/** `textProblem` of an object's key, said to be about a key. */
export function keyTextProblem(key: string): string | null {
  const message = textProblem(key);
  return message ? `(a key) ${message}` : null;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first string or key under `value` that `textProblem` refuses, named by its path from `root`
 * (`''` for a body: its members are named by their own names).
 */
export function findTextProblem(value: unknown, root: string): FieldError | null {
  return walkJson(value, root, {
    leaf: (v) => (typeof v === 'string' ? textProblem(v) : null),
    key: keyTextProblem,
  });
}

/**
 * Where a body's bytes stop being UTF-8 (or, in a form, where a percent-escape does not decode to
 * UTF-8), named as a field: null when the bytes are UTF-8. Such a body is refused rather than read
 * with U+FFFD in place of the bad bytes, which would store something other than what was sent.
 */
export function utf8Problem(bytes: Buffer, kind: 'json' | 'form' | undefined): FieldError | null {
  const message = 'is not valid UTF-8';
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    const before = bytes.subarray(0, offset).toString('utf8');
    const field = kind === 'form' ? formFieldAt(before) : jsonFieldAt(before);
    return { field, message: `${message} (byte ${offset} of the body)` };
  }
  if (kind === 'form' && bytes.includes(0x25 /* % */)) {
    for (const pair of bytes.toString('utf8').split('&')) {
      const [key, value] = splitOnce(pair);
      if (!isUtf8(formBytes(key))) return { field: 'body', message };
      if (!isUtf8(formBytes(value))) {
        return { field: formKey(key), message };
      }
    }
  }
  return null;
}

/** The bytes of a form-urlencoded key or value (`+` is a space, `%XX` a byte, a stray `%` itself). */
function formBytes(raw: string): Buffer {
  const plain = raw.replace(/\+/g, ' ');
  const bytes: number[] = [];
  const text = Buffer.from(plain, 'utf8');
  for (let i = 0; i < text.length; i++) {
    const b = text[i]!;
    const hex = b === 0x25 ? text.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

function splitOnce(pair: string): [string, string] {
  const eq = pair.indexOf('=');
  return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
}

function formKey(raw: string): string {
  const bytes = formBytes(raw);
  return isUtf8(bytes) && bytes.length > 0 ? bytes.toString('utf8') : 'body';
}

/** The byte offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    if (i + need >= bytes.length) return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}

/**
 * The path of the JSON member whose text `prefix` (valid JSON text up to some point) ends in:
 * `name`, `content.sections[2].body`; `body` when it ends outside any member value.
 */
export function jsonFieldAt(prefix: string): string {
  // one frame per open container: the path to it, and the member being read in it
  const frames: Array<{ path: string; array: boolean; index: number; key: string | null }> = [];
  let inString = false;
  let escaped = false;
  let current = '';
  let stringIsKey = false;
  let lastKey: string | null = null;
  for (let i = 0; i < prefix.length; i++) {
    const ch = prefix[i]!;
    const top = frames[frames.length - 1];
    if (inString) {
      if (escaped) {
        escaped = false;
        current += ch;
      } else if (ch === '\\') {
        escaped = true;
        current += ch;
      } else if (ch === '"') {
        inString = false;
        if (stringIsKey) lastKey = decodeJsonString(current);
      } else {
        current += ch;
      }
      continue;
    }
    switch (ch) {
      case '"':
        inString = true;
        current = '';
        // a string in an object where no key has been read since the last comma is a key
        stringIsKey = top !== undefined && !top.array && top.key === null && lastKey === null;
        break;
      case ':':
        if (top && !top.array) {
          top.key = lastKey;
          lastKey = null;
        }
        break;
      case ',':
        if (top) {
          if (top.array) top.index++;
          else top.key = null;
        }
        lastKey = null;
        break;
      case '{':
      case '[':
        frames.push({
          path: top ? memberOf(top) : '',
          array: ch === '[',
          index: 0,
          key: null,
        });
        lastKey = null;
        break;
      case '}':
      case ']':
        frames.pop();
        break;
      default:
        break;
    }
  }
  const top = frames[frames.length - 1];
  if (!top) return 'body';
  if (inString && stringIsKey) return top.path || 'body';
  return memberOf(top) || 'body';
}

function memberOf(frame: { path: string; array: boolean; index: number; key: string | null }) {
  if (frame.array) return memberPath(frame.path, frame.index);
  return frame.key === null ? frame.path : memberPath(frame.path, frame.key);
}

function decodeJsonString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The form field whose text `prefix` ends in (the key of its last `key=value` pair). */
function formFieldAt(prefix: string): string {
  const pair = prefix.slice(prefix.lastIndexOf('&') + 1);
  const eq = pair.indexOf('=');
  return eq < 0 ? 'body' : formKey(pair.slice(0, eq));
}
