import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ServiceUnavailableError } from '../../common/http/app-error.js';
import { AnyQuery } from '../../common/http/known-query.js';
import { Public } from '../../common/access/public.decorator.js';
import { HealthRepository } from './health.repository.js';

/** Probes for orchestrators, outside `/api/v1` and outside the API description. */
@ApiExcludeController()
@Public()
// a probe that adds a cache-busting parameter must not take the replica out of rotation
@AnyQuery()
@Controller('health')
export class HealthController {
  constructor(private readonly repository: HealthRepository) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(): Promise<{ status: 'ok'; database: 'up' }> {
    try {
      await Promise.race([
        this.repository.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref()),
      ]);
    } catch {
      throw new ServiceUnavailableError('the database is not reachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
