import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AnyQuery } from '../../common/http/known-query.js';
import { Public } from '../../common/access/public.decorator.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint, outside `/api/v1`; counts only, no tenant data. */
@ApiExcludeController()
@Public()
// scrapers may add parameters of their own (Prometheus `params`); the answer is the same
@AnyQuery()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
