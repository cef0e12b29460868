import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Min, ValidateBy } from 'class-validator';

import { HTTP_ADAPTERS, type HttpAdapterName } from '../http/platform/http-platform.js';
import { toBytes } from './env-values.js';
import { BoolSetting, IntSetting } from './setting-decorators.js';
import {
  isTrustProxy,
  toTrustProxy,
  TRUST_PROXY_FORMS,
  TRUST_PROXY_TRUE_REFUSED,
  type TrustProxy,
} from './trust-proxy.js';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The first part of AppConfig (app-config.ts): the HTTP server, content limits, storage, webhooks,
 * logging, rate limits, connections and administration. AppConfig extends it, its settings
 * declared in this order: an instance lists them, and validation reports them, as declared.
 */
export class ServiceSettings {
  @IntSetting({ min: 0, max: 65535 })
  PORT = 3000;

  @Transform(toBytes)
  @IsInt({ message: 'BODY_LIMIT must be a size such as 5mb, 512kb or a number of bytes' })
  @Min(1024)
  BODY_LIMIT = 5 * 1024 * 1024;

  /**
   * Values (objects, arrays, strings, numbers, booleans, nulls; keys aside) a document's `content`
   * or any other top-level member of a JSON body may hold, counted before the body is parsed.
   */
  @IntSetting({ min: 1, max: 10_000_000 })
  CONTENT_MAX_NODES = 100_000;

  /**
   * Levels of objects and arrays in `content` (its own object is level 1); at most 99, as the
   * validation pipe refuses any body nested 100 levels deep (MAX_BODY_DEPTH).
   */
  @IntSetting({ min: 1, max: 99 })
  CONTENT_MAX_DEPTH = 64;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsString()
  DATA_DIR = './.data';

  /** Port number of the embedded PostgreSQL (it names its Unix socket); 0 picks a free one. */
  @IntSetting({ min: 0, max: 65535 })
  EMBEDDED_PG_PORT = 0;

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'WEBHOOK_SECRET_KEY must be 32 bytes in standard base64 (44 characters)',
  })
  WEBHOOK_SECRET_KEY?: string;

  /**
   * Which `X-Forwarded-For` entries to believe: none (`false`), the last N hops, or those added by
   * the listed proxies. The client address is the right-most entry not added by a trusted proxy
   * (Express's `trust proxy` and Fastify's `trustProxy` both read it so).
   */
  @Transform(toTrustProxy)
  @ValidateBy({
    name: 'trustProxy',
    validator: {
      validate: isTrustProxy,
      defaultMessage: (args) =>
        typeof args?.value === 'string' && /^(true|yes)$/i.test(args.value.trim())
          ? TRUST_PROXY_TRUE_REFUSED
          : `TRUST_PROXY must be ${TRUST_PROXY_FORMS}`,
    },
  })
  TRUST_PROXY: TrustProxy = false;

  /** The HTTP server under Nest: Express, or Fastify (src/common/http/platform/). */
  @IsIn(HTTP_ADAPTERS, { message: `HTTP_ADAPTER must be one of: ${HTTP_ADAPTERS.join(', ')}` })
  HTTP_ADAPTER: HttpAdapterName = 'express';

  @IntSetting({ min: 100, max: 120_000 })
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * How long a claimed delivery's lease outlives its attempt's timeout. Only a dead worker's lease
   * ever expires; after that its `sending` rows are taken over by another worker.
   */
  @IntSetting({ min: 1_000, max: 3_600_000 })
  WEBHOOK_LEASE_MARGIN_MS = 60_000;

  @IsString()
  @Matches(/^\s*\d+\s*(ms|s|m|h|d)?\s*(,\s*\d+\s*(ms|s|m|h|d)?\s*)*$/, {
    message: 'WEBHOOK_RETRY_SCHEDULE must be a comma list of durations such as 5s,5m,2h',
  })
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  /** Non-revoked webhooks a tenant may have; one more is refused with 409 `webhook_limit_reached`. */
  @IntSetting({ min: 1, max: 100_000 })
  WEBHOOK_MAX_PER_TENANT = 50;

  /**
   * Attempts to one webhook in flight at once, across every replica (decided in the claim). An
   * endpoint that keeps failing gets fewer, down to one, until it answers 2xx again.
   */
  @IntSetting({ min: 1, max: 1_000 })
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT = 4;

  /** A webhook whose attempts have failed without a success for this long is paused (`failing`). */
  @IsString()
  @Matches(/^\s*\d+\s*(ms|s|m|h|d)?\s*$/, {
    message: 'WEBHOOK_DISABLE_AFTER must be a duration such as 5d, 12h or 30m',
  })
  WEBHOOK_DISABLE_AFTER = '5d';

  @BoolSetting()
  WEBHOOK_ALLOW_HTTP = false;

  @BoolSetting()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /**
   * `json`: one JSON object a line (for collectors); `pretty`: one readable line an event (for
   * people). Unset: pretty when stdout is a terminal, JSON otherwise (`logFormat`).
   */
  @IsOptional()
  @IsIn(LOG_FORMATS, { message: `LOG_FORMAT must be one of: ${LOG_FORMATS.join(', ')}` })
  LOG_FORMAT?: LogFormat;

  /** Seeds the demo tenant on first start in embedded mode; tests turn it off. */
  @BoolSetting()
  SEED_DEMO = true;

  /**
   * Adds the testing kit's administration commands (`testing reset`, which empties every tenant's
   * data, and `testing emit`). Only for a service started for tests; the kit turns it on.
   */
  @BoolSetting()
  TESTING_COMMANDS = false;

  /** Runs the webhook delivery worker and the lock sweeper in this process. */
  @BoolSetting()
  WORKERS_ENABLED = true;

  /** API requests per credential per minute; 0 turns the limit off. */
  @IntSetting({ min: 0 })
  RATE_LIMIT_API_PER_MINUTE = 6000;

  /** Token requests per client id and caller IP per minute; 0 turns the limit off. */
  @IntSetting({ min: 0 })
  RATE_LIMIT_TOKEN_PER_MINUTE = 120;

  /**
   * Failed client authentications at the token endpoint per caller IP (an IPv6 /64, and its /48 at
   * 16 times this) per minute, whatever client ids they name (the limit above counts per client
   * id, so rotating ids would escape it); only failures count; past it
   * every token request from that address is 429 until the minute ends. 0 turns the limit off.
   */
  @IntSetting({ min: 0 })
  RATE_LIMIT_TOKEN_FAILURES_PER_MINUTE = 30;

  /**
   * Bearer credentials looked up in the database and not found, per caller address (an IPv6
   * address by its /64) per minute; past it, that address's credentials the cache does not know
   * are refused (429) until the minute ends. 0 turns the limit off.
   */
  @IntSetting({ min: 0 })
  RATE_LIMIT_BEARER_FAILURES_PER_MINUTE = 600;

  /**
   * Connections the HTTP server holds open at once; past it a new connection is closed as soon as
   * it is accepted (connection-cap.ts). Keep it under the process's file descriptor limit, less
   * the database pool and the webhook sender's connections.
   */
  @IntSetting({ min: 1, max: 1_000_000 })
  MAX_CONNECTIONS = 4096;

  /**
   * Connections one address (an IPv6 address by its /64) holds open at once, counted by the
   * connection's own peer address, before any header is read; past it that address's new
   * connections are closed when accepted, so one address cannot take `MAX_CONNECTIONS`. A peer
   * `TRUST_PROXY` trusts (every peer with a hop count) is not capped: it carries many clients.
   */
  @IntSetting({ min: 1, max: 1_000_000 })
  MAX_CONNECTIONS_PER_ADDRESS = 256;

  /**
   * Milliseconds a request head may take, from a connection's first byte (or its opening) to the
   * head's end; past it the request is answered 408 and its connection closed.
   */
  @IntSetting({ min: 1_000, max: 300_000 })
  HEADERS_TIMEOUT_MS = 10_000;

  /**
   * A body being read must bring at least `BODY_MIN_BYTES_PER_WINDOW` bytes in every
   * `BODY_RATE_WINDOW_MS`, or it is answered 408 `request_timeout` and its connection closed.
   */
  @IntSetting({ min: 100, max: 300_000 })
  BODY_RATE_WINDOW_MS = 10_000;

  /** See `BODY_RATE_WINDOW_MS`; 0 turns the minimum rate off. */
  @IntSetting({ min: 0, max: 1_073_741_824 })
  BODY_MIN_BYTES_PER_WINDOW = 1024;

  /**
   * How long a verified credential (token or client) may be answered from memory. The cache is
   * emptied whenever a credential, tenant plan or entitlement changes (a database notification,
   * a few milliseconds after the commit) and is bypassed while that notification channel is down;
   * this is only the upper bound should a change ever go unannounced. 0: look up every request.
   */
  @IntSetting({ min: 0, max: 60_000 })
  AUTH_CACHE_TTL_MS = 1_000;

  /** Shares rate-limit counters between replicas; unset keeps them in process memory. */
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  /**
   * Unix socket on which the running service answers administration commands, so a CLI call does
   * not boot the application. Unset: `<DATA_DIR>/admin.sock` in embedded mode, none with
   * DATABASE_URL; `off`: none.
   */
  @IsOptional()
  @IsString()
  ADMIN_SOCKET?: string;

  /** File the service writes `{ pid, port, url }` to once it accepts requests (atomically). */
  @IsOptional()
  @IsString()
  READY_FILE?: string;
}
