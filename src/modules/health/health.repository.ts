import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** The readiness probe's one statement, on the pool, outside any tenant transaction. */
@Injectable()
export class HealthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Resolves once the database answered a trivial query. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
