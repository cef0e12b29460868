import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MetricsService } from './metrics.service.js';

/**
 * Times every request and labels it with the route pattern (never the raw path: ids in labels
 * would explode the series count), when the response has been sent: unmatched paths (the
 * catch-all 404 route included) are one `unmatched` series.
 */
export function registerHttpMetrics(app: NestFastifyApplication): void {
  const metrics = app.get(MetricsService);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onResponse', (request, reply, done) => {
      const pattern = request.routeOptions.url;
      const route = !pattern || pattern.includes('*') ? 'unmatched' : pattern;
      metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
}
