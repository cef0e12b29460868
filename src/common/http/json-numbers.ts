import type { FieldError } from './app-error.js';

/**
 * Text that may spell a number more precisely than a double keeps: 16 digits or more (a decimal
 * point among them), or an exponent of three digits. Only then are its number tokens scanned.
 */
const MAYBE_INEXACT = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

/** `text` without the zeros it ends with (a loop: a regular expression backtracks on inner zeros). */
function withoutTrailingZeros(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 48) end--;
  return text.slice(0, end);
}

/** A JSON number's value as `<sign><digits>e<exponent>`, without leading or trailing zeros. */
function decimalOf(text: string): string | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const all = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (all === '') return '0';
  const digits = withoutTrailingZeros(all);
  const exponent = Number(m[4] ?? 0) - (m[3]?.length ?? 0) + (all.length - digits.length);
  return `${m[1]}${digits}e${exponent}`;
}

/** Whether the double `value` is the number `source` spells, not one near it. */
export function keptExactly(source: string, value: number): boolean {
  const sent = decimalOf(source);
  return sent !== null && sent === decimalOf(String(value).replace('e+', 'e'));
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Whether `code` may continue a JSON number token (digits, `.`, `e`, `E`, `+`, `-`). */
function inNumber(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    code === 46 ||
    code === 101 ||
    code === 69 ||
    code === 43 ||
    code === 45
  );
}

/** Whether a number token may spell more than a double keeps (16 digits, a 3-digit exponent). */
function mayBeInexact(token: string): boolean {
  let digits = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 101 || c === 69) return digits >= 16 || token.length - i > 3;
    if (c >= 48 && c <= 57) digits++;
  }
  return digits >= 16;
}

/**
 * The first number of a JSON text that JSON.parse could only approximate (a 64-bit double holds
 * about 17 significant digits and exponents to ±308): `9007199254740993` would be stored as
 * `9007199254740992`, `1e-400` as `0`. Content is kept exactly as sent (docs/operators/security.md), so such a
 * number is refused. A number too large for a double is left to the checks of the value
 * (Infinity is refused where it matters). `text` must be valid JSON: one pass over it, skipping
 * strings, looks only at the number tokens that may be inexact.
 */
export function inexactNumber(text: string): FieldError | null {
  if (!MAYBE_INEXACT.test(text)) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // to the closing quote: one not preceded by an odd number of backslashes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      continue;
    }
    if (!inNumber(c)) continue;
    let end = i + 1;
    while (end < text.length && inNumber(text.charCodeAt(end))) end++;
    const token = text.slice(i, end);
    i = end - 1;
    if (!mayBeInexact(token)) continue;
    const value = Number(token);
    if (Number.isFinite(value) && !keptExactly(token, value)) return refusal(token);
  }
  return null;
}

function refusal(token: string): FieldError {
  const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
  return {
    field: 'body',
    message:
      `holds the number ${shown}, which a 64-bit floating-point number cannot keep exactly: ` +
      'send it as a string',
  };
}
