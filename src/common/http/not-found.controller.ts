import { All, Controller, Req, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { noRouteError } from './allowed-methods.js';
import { AnyBody } from './bodyless-route.js';
import { AnyQuery } from './known-query.js';
import type { HttpPlatform, HttpRequest } from './platform/http-platform.js';

/**
 * Registered last: a request under `/api/v1` that no route of its method takes passes the global
 * guard first, so without a valid token it is 401 (docs/integrators/errors.md), and never reveals which routes
 * exist; with one, 405 with `Allow` on a path other methods' routes take, 404 on any other.
 * `paths` are the router's own spelling of "everything" (HttpPlatform.catchAllPaths). `root`: a
 * tree outside the global prefix answered the same way (the platform API's, on the integration
 * port).
 */
export function notFoundController(platform: HttpPlatform, root = ''): Type {
  @ApiExcludeController()
  // an unknown route is 404 whatever its query or body
  @AnyQuery()
  @AnyBody()
  @Controller(root)
  class NotFoundController {
    @All(platform.catchAllPaths)
    notFound(@Req() req: HttpRequest): never {
      throw noRouteError(req.method, platform.methodsOnPath(req));
    }
  }
  return NotFoundController;
}
