import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/** Applies pending migrations; returns the names of those it ran. */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url));
  await ds.initialize();
  try {
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
