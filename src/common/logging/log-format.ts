import { type DestinationStream, pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { AppConfig, LogFormat } from '../config/app-config.js';

/** The format in force: `LOG_FORMAT`, or pretty on a terminal and JSON otherwise. */
export function logFormat(configured: LogFormat | undefined, isTTY: boolean): LogFormat {
  return configured ?? (isTTY ? 'pretty' : 'json');
}

/**
 * One line an event: time, level, `[context]`, for a request `METHOD path status in N ms` and its
 * id, then the message; other fields follow on the same line. The `req`/`res` objects are left out
 * (their redacted headers stay in the JSON format).
 */
const PRETTY_OPTIONS = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,context,req,res,responseTime',
  singleLine: true,
  messageFormat:
    '{if context}[{context}] {end}' +
    '{if req.method}{req.method} {req.path} {end}{if res.statusCode}{res.statusCode} {end}' +
    '{if responseTime}in {responseTime} ms {end}{if req.id}(request {req.id}) {end}{msg}',
} as const;

/**
 * Where the log lines go. JSON is written asynchronously (pino flushes what is buffered at exit).
 * Pretty lines are formatted in this process, synchronously, from the line pino has already
 * serialized and redacted (pino-pretty's formatter, not its stream or a worker-thread transport),
 * and written synchronously: a person at a terminal gets every line, a shutdown's last ones
 * included. `destination` replaces stdout (tests).
 */
export function logStream(
  config: Pick<AppConfig, 'LOG_FORMAT'>,
  destination?: DestinationStream,
  isTTY: boolean = process.stdout.isTTY === true,
): DestinationStream {
  if (logFormat(config.LOG_FORMAT, isTTY) === 'json') {
    return destination ?? outputDestination(false);
  }
  const format = prettyFactory({ ...PRETTY_OPTIONS, colorize: destination === undefined && isTTY });
  const out = destination ?? outputDestination(true);
  return {
    write(line: string): void {
      out.write(format(line));
    },
  };
}

/**
 * The file descriptor the log lines are written to (stdout). A line that cannot be written is
 * dropped: after a terminal is closed every write fails (EIO), and pino would rethrow that as an
 * uncaught error that ends the process in the middle of its shutdown, before it has stopped the
 * embedded PostgreSQL.
 */
export function outputDestination(sync: boolean, fd = 1): DestinationStream {
  const out = pino.destination({ dest: fd, sync });
  out.on('error', () => undefined);
  return out;
}
