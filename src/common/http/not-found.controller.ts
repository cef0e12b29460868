import { All, Controller, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { NotFoundError } from './app-error.js';
import { AnyBody } from './bodyless-route.js';
import { AnyQuery } from './known-query.js';

/**
 * Registered last: an unknown route under `/api/v1` passes the global guard first, so without a
 * valid token it is 401 and with one 404 (CONTRACT.md §2), and never reveals which routes exist.
 * `paths` are the router's own spelling of "everything" (HttpPlatform.catchAllPaths).
 */
export function notFoundController(paths: string[]): Type {
  @ApiExcludeController()
  // an unknown route is 404 whatever its query or body
  @AnyQuery()
  @AnyBody()
  @Controller()
  class NotFoundController {
    @All(paths)
    notFound(): never {
      throw new NotFoundError('route');
    }
  }
  return NotFoundController;
}
