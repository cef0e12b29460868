import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type DestinationStream, pino } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { requestIdFor } from '../http/request-id.js';
import { traceHooks } from '../tracing/trace-hooks.js';
import { logStream } from './log-format.js';
import { withoutSecretHeaders, withoutSecrets } from './secret-fields.js';

/**
 * What an error's log line keeps: what it is and where (a message may still quote what PostgreSQL
 * could not parse), not the fields that carry a statement's values or a row's.
 */
const ERROR_FIELDS = [
  'type',
  'message',
  'stack',
  'code',
  'constraint',
  'table',
  'column',
  'errno',
  'syscall',
  'address',
  'port',
] as const;

/**
 * pino's error serializer copies every enumerable property: TypeORM's QueryFailedError carries
 * the statement's bound `parameters` (a storage location, a digest, a whole request body) and its
 * `driverError` repeats them; PostgreSQL's `detail` and `where` quote row values ("Failing row
 * contains (…)", "Key (…)=(…)"). Only the fields named above are kept, whatever the error.
 */
export function serializeError(err: unknown): Record<string, unknown> {
  if (typeof err !== 'object' || err === null) return { type: typeof err, message: String(err) };
  const s = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const field of ERROR_FIELDS) if (s[field] !== undefined) kept[field] = s[field];
  // a connection refused on every address of a name: each address's own error
  const { errors } = err as { errors?: unknown };
  if (Array.isArray(errors)) kept['aggregateErrors'] = errors.map(serializeError);
  return kept;
}

/**
 * The settings every pino logger of the service shares, the bootstrap's included. Secrets never
 * reach the log: request bodies are not logged at all, and secrets in what a line logs are censored
 * (`withoutSecrets`). pino formats a child logger's bindings without it: the service makes no
 * child loggers of its own, and pino-http's carry the request, which the `req` serializer below
 * reduces to its id, method, path and address.
 */
export const LOG_HYGIENE = {
  formatters: { log: withoutSecrets },
  serializers: { err: serializeError },
};

@Module({})
export class LoggingModule {
  static register(config: AppConfig, destination?: DestinationStream): DynamicModule {
    const tracing = traceHooks();
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          // every route once: the module's default also adds the routes excluded from the global
          // prefix (health, metrics) a second time, which logged them twice under Fastify
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
          pinoHttp: [
            {
              level: config.LOG_LEVEL,
              // with tracing on, every line carries the active span's trace_id and span_id
              ...(tracing ? { mixin: () => tracing.logFields() } : {}),
              // the request's id, given by the HTTP platform before this runs (request-id.ts)
              genReqId: (req) => (typeof req.id === 'string' ? req.id : requestIdFor(req)),
              formatters: LOG_HYGIENE.formatters,
              customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
              serializers: {
                err: serializeError,
                // the query string can carry anything a caller typed; keep the path only
                req: (req: {
                  id: unknown;
                  method: string;
                  url: string;
                  remoteAddress?: string;
                }) => ({
                  id: req.id,
                  method: req.method,
                  path: req.url.split('?')[0],
                  remoteAddress: req.remoteAddress,
                }),
                // what pino-http logs of an answer, its credential headers censored
                res: (res: { statusCode: number; headers?: unknown }) => ({
                  statusCode: res.statusCode,
                  headers: withoutSecretHeaders(res.headers),
                }),
              },
            },
            // JSON or pretty lines (LOG_FORMAT), formatted after redaction
            logStream(config, destination),
          ],
        }),
      ],
    };
  }
}
