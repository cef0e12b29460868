import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { inexactNumber, keptExactly } from './json-numbers.js';

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });

/** The integer the shortest decimal of `x` (what JSON.stringify writes) spells. */
function shortestAsBigInt(x: number): bigint {
  const [mantissa, exponent = '0'] = String(x).split('e');
  const [whole, fraction = ''] = mantissa!.split('.');
  const scale = Number(exponent) - fraction.length;
  const digits = BigInt(`${whole}${fraction}`);
  return scale >= 0 ? digits * 10n ** BigInt(scale) : digits / 10n ** BigInt(-scale);
}

/** Other spellings of the same decimal: trailing zeros moved into or out of an exponent. */
function respell(text: string, zeros: number, upper: boolean): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text)!;
  // zeros after a fraction change nothing; after an integer, the exponent takes them back
  const exponent = Number(m[4] ?? 0) - (m[3] ? 0 : zeros);
  const fraction = m[3] ? `.${m[3]}` : '';
  return `${m[1]}${m[2]}${fraction}${'0'.repeat(fraction ? zeros : 0)}${fraction ? '' : '0'.repeat(zeros)}${upper ? 'E' : 'e'}${exponent}`;
}

describe('JSON numbers kept exactly', () => {
  it('keeps every double as JSON.stringify writes it, and as other spellings of that decimal', () => {
    fc.assert(
      fc.property(finite, fc.nat({ max: 5 }), fc.boolean(), (d, zeros, upper) => {
        const text = JSON.stringify(d);
        expect(keptExactly(text, d)).toBe(true);
        expect(keptExactly(respell(text, zeros, upper), d)).toBe(true);
        expect(inexactNumber(`{"a":[${text}, ${respell(text, zeros, upper)}]}`)).toBeNull();
      }),
      { numRuns: 5_000 },
    );
  });

  it('refuses an integer a double cannot hold, and only such one', () => {
    const big = fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n });
    fc.assert(
      fc.property(big, fc.boolean(), (b, negative) => {
        const n = negative ? -b : b;
        // what the stored double is written back as, read as an integer
        const exact = shortestAsBigInt(Number(n)) === n;
        const problem = inexactNumber(`{"content":{"id":${n}}}`);
        expect(problem === null).toBe(exact);
        if (problem) expect(problem.message).toContain(String(n).slice(0, 16));
      }),
      { numRuns: 5_000 },
    );
  });

  it('refuses a decimal, point anywhere, exactly when its double is written back otherwise', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** 25n }), fc.nat({ max: 26 }), fc.boolean())
      .map(([digits, point, negative]) => {
        const text = String(digits);
        const at = Math.min(point, text.length - 1);
        const spelled = at === 0 ? text : `${text.slice(0, text.length - at)}.${text.slice(-at)}`;
        return { spelled: `${negative ? '-' : ''}${spelled}`, digits, scale: at, negative };
      });
    fc.assert(
      fc.property(decimal, ({ spelled, digits, scale, negative }) => {
        const value = Number(spelled);
        // the decimal JSON.stringify writes for the double, against digits·10^-scale, exactly
        const [mantissa, exponent = '0'] = JSON.stringify(Math.abs(value)).split('e');
        const [whole, fraction = ''] = mantissa!.split('.');
        const back = BigInt(`${whole}${fraction}`);
        const shift = -scale - (Number(exponent) - fraction.length);
        const exact =
          Math.sign(value) === (negative ? -1 : 1) &&
          (shift >= 0
            ? digits * 10n ** BigInt(shift) === back
            : digits === back * 10n ** BigInt(-shift));
        expect(inexactNumber(`[${spelled}]`) === null).toBe(exact);
      }),
      { numRuns: 5_000 },
    );
  });

  it('refuses a fraction with more digits than a double keeps, and a number that underflows', () => {
    expect(inexactNumber('[1234567890.12345678]')).not.toBeNull();
    expect(inexactNumber('[0.30000000000000004]')).toBeNull();
    expect(inexactNumber('[0.300000000000000004]')).not.toBeNull();
    expect(inexactNumber('[1e-400]')).not.toBeNull();
    expect(inexactNumber('[5e-324]')).toBeNull();
    // beyond a double's range: Infinity, refused by the checks of the value, not here
    expect(inexactNumber('[1e400]')).toBeNull();
    // digits inside strings are text, kept as they are, whatever the escapes around them
    expect(inexactNumber('{"a":"123456789012345678901234567890"}')).toBeNull();
    expect(inexactNumber('{"a":"x\\"1234567890123456789","b":1}')).toBeNull();
    expect(inexactNumber('{"a":"\\\\","b":12345678901234567890}')).not.toBeNull();
    expect(inexactNumber(`[1.${'0'.repeat(50_000)}1]`)).not.toBeNull();
  });

  it('finds nothing in any JSON JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(inexactNumber(JSON.stringify([value]))).toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });
});
