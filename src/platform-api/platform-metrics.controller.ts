import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../common/access/public.decorator.js';
import { AnyQuery } from '../common/http/known-query.js';
import { METRICS_CONTENT_TYPE, MetricsService } from '../modules/metrics/metrics.service.js';

/**
 * `/metrics` on the platform listener, outside `/platform/v1` and without a credential: the
 * listener is internal (loopback by default; a network policy in a cluster), as the scrape is.
 */
@ApiExcludeController()
@Public()
@AnyQuery()
@Controller('metrics')
export class PlatformMetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}
