import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AppConfig } from '../../common/config/app-config.js';
import { AnyQuery } from '../../common/http/known-query.js';
import { Public } from '../../common/access/public.decorator.js';
import { METRICS_CONTENT_TYPE, MetricsService } from './metrics.service.js';
import { carriesMetricsToken, MetricsTokenError } from './metrics-token.js';

/**
 * Prometheus scrape endpoint on the API port, outside `/api/v1`: only when METRICS_TOKEN is set
 * (MetricsRouteModule), and only with that token. Counts only, no tenant data.
 */
@ApiExcludeController()
// not a tenant credential: the metrics token is checked here
@Public()
// scrapers may add parameters of their own (Prometheus `params`); the answer is the same
@AnyQuery()
@Controller('metrics')
export class MetricsController {
  private readonly token: string;

  constructor(
    private readonly metrics: MetricsService,
    config: AppConfig,
  ) {
    this.token = config.METRICS_TOKEN ?? '';
  }

  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  scrape(@Headers('authorization') authorization?: string): Promise<string> {
    if (!carriesMetricsToken(authorization, this.token)) throw new MetricsTokenError();
    return this.metrics.scrape();
  }
}
