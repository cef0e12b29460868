import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import { CallerGoneError } from '../concurrency/caller-signal.js';
import { noRouteError } from './allowed-methods.js';
import {
  AppError,
  type FieldError,
  MethodNotAllowedError,
  ValidationFailedError,
} from './app-error.js';
import { BodyError } from './body-decoding.js';
import { OAuthError } from './oauth-error.js';
import type { FrameworkRefusal, HttpPlatform, HttpRequest } from './platform/http-platform.js';
import { problem, PROBLEM_CONTENT_TYPE, type ProblemBody } from './problem.js';

interface HttpishError {
  code?: string;
  syscall?: string;
}

const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006',
]);

function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as HttpishError;
  if (code && DB_UNAVAILABLE_CODES.has(code)) return true;
  // a server on a Unix socket (the embedded one) that is down has no socket file: only a connect
  // says so, a file that is missing elsewhere stays an internal error
  if (code === 'ENOENT' && syscall === 'connect') return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    err.message,
  );
}

/** A body that could not be read as its headers say; `why` names the parser's reason. */
function unreadableBody(rid: string | null, why: string): ProblemBody {
  return problem('validation_failed', 'the body could not be read', rid, {
    errors: [{ field: 'body', message: why }],
  });
}

function oauthErrorCode(status: number): string {
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'temporarily_unavailable';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * The one place where errors become responses: RFC 9457 problem details for the API, RFC 6749
 * bodies for the token endpoint. Nothing internal (stack, SQL, secrets) reaches a body.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  /** `oauthRoutes`: the routes that speak RFC 6749 only (the token endpoint's), errors too. */
  constructor(
    private readonly platform: HttpPlatform,
    private readonly oauthRoutes: ReadonlySet<string> = new Set(),
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<HttpRequest>();
    const res = ctx.getResponse<unknown>();
    // nobody to answer: a client gone before its turn came (the request log has the close)
    if (this.platform.sent(res) || exception instanceof CallerGoneError) return;
    const rid = req.id;
    // also on errors the server answers before the request's hooks run
    const headers: Record<string, string> = { 'X-Request-Id': rid };

    if (exception instanceof OAuthError) {
      this.platform.send(
        res,
        exception.status,
        { ...headers, 'Cache-Control': 'no-store', Pragma: 'no-cache', ...exception.headers },
        { error: exception.error, error_description: exception.description },
      );
      return;
    }

    const body = this.toProblem(this.routingError(exception, req), rid, headers);
    // the matched route when there is one (a trailing slash too), else the path as sent
    if (this.oauthRoutes.has(this.platform.routeOf(req) ?? pathOf(req.url))) {
      // the token endpoint speaks RFC 6749 only, also for errors found before it runs
      this.platform.send(
        res,
        body.status,
        { ...headers, 'Cache-Control': 'no-store', Pragma: 'no-cache' },
        { error: oauthErrorCode(body.status), error_description: body.detail },
      );
      return;
    }
    this.platform.send(
      res,
      body.status,
      { ...headers, 'Content-Type': PROBLEM_CONTENT_TYPE },
      JSON.stringify(body),
    );
  }

  /**
   * The router's own 404 (a path outside `/api/v1`, where no guard runs: the public health and
   * metrics routes) is a 405 with `Allow` where other methods have a route, as under `/api/v1`.
   */
  private routingError(exception: unknown, req: HttpRequest): unknown {
    if (!(exception instanceof HttpException) || exception.getStatus() !== 404) return exception;
    const error = noRouteError(req.method, this.platform.methodsOnPath(req));
    return error instanceof MethodNotAllowedError ? error : exception;
  }

  private toProblem(
    exception: unknown,
    rid: string | null,
    headers: Record<string, string>,
  ): ProblemBody {
    if (exception instanceof AppError) {
      Object.assign(headers, exception.headers);
      const errors = exception instanceof ValidationFailedError ? { errors: exception.errors } : {};
      return problem(exception.code, exception.message, rid, {
        ...exception.extensions,
        ...errors,
      });
    }
    if (exception instanceof BodyError) return bodyProblem(exception, rid);
    const refusal = this.platform.refusalOf(exception);
    if (refusal) return refusalProblem(refusal, rid);
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return problem('not_found', 'no such resource', rid);
      }
      if (status === 405) {
        return problem('method_not_allowed', exception.message, rid);
      }
      if (status === 413) return tooLarge(rid);
      if (status < 500) {
        return problem('validation_failed', exception.message, rid, {
          errors: [{ field: 'request', message: exception.message }],
        });
      }
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ err: exception, request_id: rid }, 'database unavailable');
      headers['Retry-After'] = '5';
      return problem('service_unavailable', 'the database is unavailable, retry shortly', rid);
    }
    this.logger.error({ err: exception, request_id: rid }, 'unhandled error');
    return problem('internal_error', 'an unexpected error occurred', rid);
  }
}

/** The path of a request target, without its query and one trailing slash (as routes match). */
function pathOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function tooLarge(rid: string | null): ProblemBody {
  return problem('payload_too_large', 'the request body is too large', rid);
}

const UNSUPPORTED_MEDIA: ReadonlySet<string> = new Set([
  'media.unsupported',
  'charset.unsupported',
  'encoding.unsupported',
]);

function bodyProblem(err: BodyError, rid: string | null): ProblemBody {
  if (err.type === 'entity.too.large') return tooLarge(rid);
  if (UNSUPPORTED_MEDIA.has(err.type)) {
    const detail = err.type === 'media.unsupported' ? 'unsupported media type' : err.message;
    return problem('unsupported_media_type', detail, rid);
  }
  // bytes that are not UTF-8: the error names the field they sit in (body-decoding.ts)
  const { errors } = err as BodyError & { errors?: FieldError[] };
  if (errors?.length) {
    return problem('validation_failed', err.message, rid, { errors });
  }
  if (err.type === 'entity.parse.failed') {
    return problem('validation_failed', 'the body is not valid JSON', rid, {
      errors: [{ field: 'body', message: 'malformed JSON' }],
    });
  }
  return unreadableBody(rid, err.type);
}

function refusalProblem(refusal: FrameworkRefusal, rid: string | null): ProblemBody {
  switch (refusal.kind) {
    case 'payload_too_large':
      return tooLarge(rid);
    case 'unreadable_body':
      return unreadableBody(rid, refusal.reason);
    case 'malformed_request':
      return problem('malformed_request', refusal.detail, rid);
  }
}
