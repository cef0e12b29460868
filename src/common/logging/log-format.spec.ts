import { type EventEmitter, once } from 'node:events';
import { openSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { logFormat, logStream, outputDestination } from './log-format.js';
import { LOG_HYGIENE } from './logging.module.js';

/** A pino logger configured as the application's (redaction included), writing into `lines`. */
function loggerInto(
  lines: string[],
  format: 'json' | 'pretty' | undefined,
  isTTY: boolean,
): pino.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino(LOG_HYGIENE, logStream({ LOG_FORMAT: format }, sink, isTTY));
}

const isJson = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

describe('log format', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['json', true, 'json'],
    ['json', false, 'json'],
    ['pretty', true, 'pretty'],
    ['pretty', false, 'pretty'],
  ] as const)('LOG_FORMAT=%s with a terminal=%s is %s', (configured, isTTY, expected) => {
    expect(logFormat(configured, isTTY)).toBe(expected);
  });

  it('writes JSON lines when stdout is not a terminal and LOG_FORMAT is unset', async () => {
    const lines: string[] = [];
    loggerInto(lines, undefined, false).info({ n: 1 }, 'hello');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 30, msg: 'hello', n: 1 });
  });

  it('writes one readable line an event on a terminal, synchronously, without colours into a given sink', () => {
    const lines: string[] = [];
    const log = loggerInto(lines, undefined, true);
    log.info({ context: 'Probe', n: 1 }, 'hello');
    log.info(
      {
        req: { id: 'r-1', method: 'GET', path: '/api/v1/projects' },
        res: { statusCode: 200 },
        responseTime: 4,
      },
      'request completed',
    );
    log.warn('careful');
    // written before the call returns: nothing is left to flush when the process exits
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(isJson(line)).toBe(false);
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
      expect(line).not.toContain('\u001b[');
    }
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Probe\] hello \{"n":1\}\n$/);
    expect(lines[1]).toMatch(
      /INFO: GET \/api\/v1\/projects 200 in 4 ms \(request r-1\) request completed\n$/,
    );
    expect(lines[2]).toMatch(/WARN: careful\n$/);
  });

  it('redacts secrets before formatting a pretty line', () => {
    const lines: string[] = [];
    loggerInto(lines, 'pretty', false).info(
      {
        grant: { client_secret: 'cs-very-secret', token: 'tok-very-secret' },
        headers: { authorization: 'Bearer tok-very-secret' },
        req: { headers: { authorization: 'Bearer tok-very-secret' } },
      },
      'probe',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('probe');
    expect(lines[0]).toContain('"client_secret":"[redacted]"');
    expect(lines[0]).toContain('"token":"[redacted]"');
    expect(lines[0]).toContain('"authorization":"[redacted]"');
    expect(lines[0]).not.toContain('very-secret');
  });
});

describe('outputDestination', () => {
  // /dev/full refuses every write (ENOSPC), as a closed terminal refuses them (EIO)
  it.each([true, false])(
    'drops a line it cannot write (sync %s) instead of throwing',
    async (sync) => {
      const fd = openSync('/dev/full', 'w');
      const out = outputDestination(sync, fd);
      // an error without a listener would throw here (sync) or as an uncaught error (async)
      expect(() => out.write('a line\n')).not.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      // SonicBoom closes the fd itself, asynchronously: closing it here as well would close
      // whatever the number belongs to by then (another test's socket, in the same worker)
      const closed = once(out as unknown as EventEmitter, 'close');
      (out as unknown as { destroy(): void }).destroy();
      await closed;
    },
  );
});
