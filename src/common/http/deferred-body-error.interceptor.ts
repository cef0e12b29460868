import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { Injectable } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { takeDeferredBodyError } from './request-body.js';

/**
 * Throws what was wrong with the request's body (unreadable, too large, of another media type)
 * once the guards have passed: the credential, IP, scope and entitlement checks come first
 * (docs/integrators/errors.md), then the body, then validation.
 */
@Injectable()
export class DeferredBodyErrorInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const err = takeDeferredBodyError(context.switchToHttp().getRequest<object>());
    if (err !== undefined) throw err;
    return next.handle();
  }
}
