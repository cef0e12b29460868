import { DataSource } from 'typeorm';
import type { PoolMode } from '../config/app-config.js';
import { dataSourceOptions } from './data-source-options.js';

/** Applies pending migrations; returns the names of those it ran. */
export async function runMigrations(url: string, mode: PoolMode = 'session'): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, { mode, size: 2 }, false));
  await ds.initialize();
  try {
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
