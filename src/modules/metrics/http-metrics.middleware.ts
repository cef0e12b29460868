import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service.js';

/**
 * Times every request and labels it with the route pattern (never the raw path: ids in labels
 * would explode the series count), read when the response finishes, after routing.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const pattern = (req.route as { path?: string } | undefined)?.path;
      const route = !pattern || pattern.includes('*') ? 'unmatched' : pattern;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.observeRequest(req.method, route, res.statusCode, seconds);
    });
    next();
  }
}
