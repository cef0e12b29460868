import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  type Type,
} from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from './app-error.js';

const ANY_QUERY = 'grc:anyQuery';
/** Where @nestjs/swagger lists a DTO's `@ApiProperty` names (`DECORATORS`, not exported). */
const API_MODEL_PROPERTIES = 'swagger/apiModelPropertiesArray';

/**
 * Exempts a controller or route from the unknown-query check: the operational routes outside
 * `/api/v1` (a probe or scraper that adds a cache-busting parameter must not take a replica out of
 * rotation) and the catch-all that answers unknown routes (404 whatever the query).
 */
export const AnyQuery = (): ClassDecorator & MethodDecorator => SetMetadata(ANY_QUERY, true);

interface RouteArg {
  index: number;
  data?: unknown;
}

/**
 * The query parameters a handler declares: each `@Query('name')`, and every property of a
 * `@Query()` DTO (its `@ApiProperty` entries, which also document it). Null: any (`@AnyQuery`).
 */
function declaredQuery(
  reflector: Reflector,
  controller: Type,
  method: (...args: unknown[]) => unknown,
): Set<string> | null {
  if (reflector.getAllAndOverride<boolean>(ANY_QUERY, [method, controller])) return null;
  const handler = method.name;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<
    string,
    RouteArg
  >;
  const prototype = controller.prototype as object;
  const types = (Reflect.getMetadata('design:paramtypes', prototype, handler) ?? []) as unknown[];
  const names = new Set<string>();
  for (const [key, arg] of Object.entries(args)) {
    if (Number(key.split(':')[0]) !== Number(RouteParamtypes.QUERY)) continue;
    if (typeof arg.data === 'string') {
      names.add(arg.data);
      continue;
    }
    const dto = types[arg.index] as { prototype?: object } | undefined;
    const properties = (
      dto?.prototype ? (Reflect.getMetadata(API_MODEL_PROPERTIES, dto.prototype) ?? []) : []
    ) as string[];
    for (const property of properties) names.add(property.replace(/^:/, ''));
  }
  return names;
}

/**
 * Unknown query parameters are 400 on every route (docs/operators/security.md), not only on those whose query
 * DTO the validation pipe checks: a misspelt `limt=10` must not be silently ignored anywhere. One
 * check for all routes, from what each handler declares; it runs after the guards, so the order of the checks (docs/integrators/errors.md)
 * (authentication, allowlist, scope, entitlement, then validation) holds.
 */
@Injectable()
export class KnownQueryInterceptor implements NestInterceptor {
  private readonly declared = new Map<object, Set<string> | null>();

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler() as (...args: unknown[]) => unknown;
    let names = this.declared.get(handler);
    if (names === undefined) {
      names = declaredQuery(this.reflector, context.getClass(), handler);
      this.declared.set(handler, names);
    }
    const url = context.switchToHttp().getRequest<{ url?: string }>().url ?? '';
    const search = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
    if (names && search !== '') {
      const unknown = [...new Set(new URLSearchParams(search).keys())].filter(
        (key) => !names.has(key),
      );
      if (unknown.length > 0) {
        throw new ValidationFailedError(
          unknown.map((key) => ({
            field: key.length > 100 ? `${key.slice(0, 100)}…` : key,
            message: 'is not a query parameter of this route',
          })),
        );
      }
    }
    return next.handle();
  }
}
