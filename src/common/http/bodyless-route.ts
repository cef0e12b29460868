import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from './app-error.js';

const ANY_BODY = 'grc:anyBody';

/** Exempts a controller from the check: the catch-all that answers unknown routes 404. */
export const AnyBody = (): ClassDecorator => SetMetadata(ANY_BODY, true);

/** A handler with a `@Body()`, or one that reads the request itself (`@Req()`: the token route). */
function takesBody(controller: object, handler: string): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as object;
  const kinds = [Number(RouteParamtypes.BODY), Number(RouteParamtypes.REQUEST)];
  return Object.keys(args).some((key) => kinds.includes(Number(key.split(':')[0])));
}

/** Nothing sent, or an empty object or array (what many clients send by default). */
function isEmpty(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  if (Array.isArray(body)) return body.length === 0;
  if (typeof body === 'object') return Object.keys(body).length === 0;
  return false;
}

/**
 * A route that takes no body (a replay, a test event, a check-in) refuses one with members, as
 * routes with a body refuse members they do not know: a field sent there would otherwise be
 * silently ignored. `{}` and no body at all pass. Runs after the guards (the order of the checks, docs/integrators/errors.md).
 */
@Injectable()
export class BodylessRouteInterceptor implements NestInterceptor {
  private readonly bodyless = new Map<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler();
    let bodyless = this.bodyless.get(handler);
    if (bodyless === undefined) {
      const exempt = Reflect.getMetadata(ANY_BODY, context.getClass()) === true;
      bodyless = !exempt && !takesBody(context.getClass(), handler.name);
      this.bodyless.set(handler, bodyless);
    }
    if (bodyless && !isEmpty(context.switchToHttp().getRequest<{ body?: unknown }>().body)) {
      throw new ValidationFailedError([
        { field: 'body', message: 'this operation takes no body (send none, or {})' },
      ]);
    }
    return next.handle();
  }
}
