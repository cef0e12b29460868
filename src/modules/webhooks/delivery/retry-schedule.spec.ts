import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_RETRY_SCHEDULE,
  boundRetryAfterMs,
  nextRetryDelayMs,
  parseDuration,
  parseRetrySchedule,
  retryAfterMs,
  retryDelayMs,
} from './retry-schedule.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('parseDuration', () => {
  it.each([
    ['5s', 5 * SECOND],
    ['5m', 5 * MINUTE],
    ['2h', 2 * HOUR],
    ['500ms', 500],
    ['1d', 24 * HOUR],
    ['30', 30 * SECOND],
    ['0', 0],
    [' 10s ', 10 * SECOND],
    ['1.5h', 90 * MINUTE],
    ['0.5', 500],
  ])('parses %j', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    '-5s',
    '-1',
    '5x',
    'abc',
    '5 s',
    '5S',
    's',
    '1e3',
    'NaN',
    'Infinity',
    '5s5m',
    '.5s',
  ])('rejects %j with a clear message', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration .*ms, s, m, h or d/);
  });

  it('rejects a duration too large to represent exactly', () => {
    expect(() => parseDuration('99999999999999999999d')).toThrow(/too large/);
  });
});

describe('parseRetrySchedule', () => {
  it('parses the default schedule', () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  it('tolerates whitespace and bare seconds', () => {
    expect(parseRetrySchedule(' 5s , 5m,2h ,10 ')).toEqual([
      5 * SECOND,
      5 * MINUTE,
      2 * HOUR,
      10 * SECOND,
    ]);
  });

  it.each(['', '  '])('refuses an empty list (%j)', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/at least one duration/);
  });

  it.each([
    ['5s,,5m', /entry 2 is empty/],
    ['5s,', /entry 2 is empty/],
    [',5s', /entry 1 is empty/],
    ['5s,soon', /entry 2: invalid duration "soon"/],
    ['5s,-5m', /entry 2: invalid duration/],
  ])('refuses %j naming the bad entry', (text, message) => {
    expect(() => parseRetrySchedule(text)).toThrow(message);
  });
});

describe('retryDelayMs', () => {
  const schedule = [5 * SECOND, 5 * MINUTE, 30 * MINUTE];

  it('uses the delay matching the number of failed attempts', () => {
    const noJitter = () => 0.5;
    expect(retryDelayMs(schedule, 1, noJitter)).toBe(5 * SECOND);
    expect(retryDelayMs(schedule, 2, noJitter)).toBe(5 * MINUTE);
    expect(retryDelayMs(schedule, 3, noJitter)).toBe(30 * MINUTE);
  });

  it('allows N + 1 attempts for N delays, then gives up', () => {
    let attempts = 1; // the first attempt is immediate
    while (retryDelayMs(schedule, attempts) !== null) attempts++;
    expect(attempts).toBe(schedule.length + 1);
    expect(retryDelayMs(schedule, 4)).toBeNull();
    expect(retryDelayMs([], 1)).toBeNull();
  });

  it('applies at most ±10 % jitter', () => {
    expect(retryDelayMs([10 * SECOND], 1, () => 0)).toBe(9 * SECOND);
    expect(retryDelayMs([10 * SECOND], 1, () => 0.999999)).toBe(11 * SECOND);
    for (let i = 0; i < 1_000; i++) {
      const delay = retryDelayMs(schedule, 2)!;
      expect(delay).toBeGreaterThanOrEqual(0.9 * 5 * MINUTE);
      expect(delay).toBeLessThanOrEqual(1.1 * 5 * MINUTE);
    }
  });

  it('actually jitters with the default random source', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(schedule, 3)));
    expect(delays.size).toBeGreaterThan(1);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses attemptsMade = %s', (attemptsMade) => {
    expect(() => retryDelayMs(schedule, attemptsMade)).toThrow(RangeError);
  });
});

describe('retryAfterMs', () => {
  const now = new Date('2025-03-01T12:00:00.000Z');

  it.each([
    ['120', 120 * SECOND],
    ['0', 0],
    [' 5 ', 5 * SECOND],
    ['Sat, 01 Mar 2025 12:00:30 GMT', 30 * SECOND],
    ['Saturday, 01-Mar-25 12:01:00 GMT', MINUTE],
    ['Sat Mar  1 12:00:10 2025', 10 * SECOND],
    ['Fri, 28 Feb 2025 12:00:00 GMT', 0],
  ])('parses %j', (header, expected) => {
    expect(retryAfterMs(header, now)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    '  ',
    '-5',
    '1.5',
    '5s',
    'soon',
    'Foo 2025 GMT',
    '2025-03-01T12:00:30Z',
    '1e3',
  ])('returns null for %j', (header) => {
    expect(retryAfterMs(header, now)).toBeNull();
  });
});

describe('boundRetryAfterMs / nextRetryDelayMs', () => {
  const schedule = [5 * SECOND, 5 * MINUTE, 30 * MINUTE];

  it('honours a Retry-After within the next two scheduled delays', () => {
    expect(boundRetryAfterMs(schedule, 1, 2 * MINUTE)).toBe(2 * MINUTE);
    expect(boundRetryAfterMs(schedule, 1, 0)).toBe(0);
  });

  it('caps it at the sum of the next two delays', () => {
    expect(boundRetryAfterMs(schedule, 1, HOUR)).toBe(5 * SECOND + 5 * MINUTE);
    expect(boundRetryAfterMs(schedule, 2, 10 * HOUR)).toBe(35 * MINUTE);
  });

  it('caps it at the last delay when only one is left', () => {
    expect(boundRetryAfterMs(schedule, 3, 10 * HOUR)).toBe(30 * MINUTE);
  });

  it('never goes below zero', () => {
    expect(boundRetryAfterMs(schedule, 1, -5 * SECOND)).toBe(0);
  });

  it('never buys an extra attempt', () => {
    expect(boundRetryAfterMs(schedule, 4, SECOND)).toBeNull();
    expect(nextRetryDelayMs(schedule, 4, SECOND)).toBeNull();
    expect(nextRetryDelayMs(schedule, 4, null)).toBeNull();
  });

  it('uses the bounded Retry-After when present, the jittered schedule otherwise', () => {
    expect(nextRetryDelayMs(schedule, 2, 7 * MINUTE, () => 0)).toBe(7 * MINUTE);
    expect(nextRetryDelayMs(schedule, 2, 10 * HOUR, () => 0)).toBe(35 * MINUTE);
    expect(nextRetryDelayMs(schedule, 2, null, () => 0)).toBe(4.5 * MINUTE);
  });
});
