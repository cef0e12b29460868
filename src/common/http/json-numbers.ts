import type { FieldError } from './app-error.js';

/**
 * Text that may spell a number more precisely than a double keeps: 16 digits or more (a decimal
 * point among them), or an exponent of three digits. Only then is the body parsed a second time,
 * number by number.
 */
const MAYBE_INEXACT = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

/** A JSON number's value as `<sign><digits>e<exponent>`, without leading or trailing zeros. */
function decimalOf(text: string): string | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const all = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (all === '') return '0';
  const digits = all.replace(/0+$/, '');
  const exponent = Number(m[4] ?? 0) - (m[3]?.length ?? 0) + (all.length - digits.length);
  return `${m[1]}${digits}e${exponent}`;
}

/** Whether the double `value` is the number `source` spells, not one near it. */
export function keptExactly(source: string, value: number): boolean {
  const sent = decimalOf(source);
  return sent !== null && sent === decimalOf(String(value).replace('e+', 'e'));
}

/**
 * The first number of a JSON text that JSON.parse could only approximate (a 64-bit double holds
 * about 17 significant digits and exponents to ±308): `9007199254740993` would be stored as
 * `9007199254740992`, `1e-400` as `0`. CONTRACT.md §10 keeps content exactly as sent, so such a
 * number is refused. A number too large for a double is left to the checks of the value
 * (Infinity is refused where it matters). `text` must be valid JSON.
 */
export function inexactNumber(text: string): FieldError | null {
  if (!MAYBE_INEXACT.test(text)) return null;
  let found: string | undefined;
  JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
    const source = context?.source;
    if (
      found === undefined &&
      typeof value === 'number' &&
      Number.isFinite(value) &&
      source !== undefined &&
      !keptExactly(source, value)
    ) {
      found = source;
    }
    return value;
  });
  if (found === undefined) return null;
  const shown = found.length > 40 ? `${found.slice(0, 40)}…` : found;
  return {
    field: 'body',
    message:
      `holds the number ${shown}, which a 64-bit floating-point number cannot keep exactly: ` +
      'send it as a string',
  };
}
