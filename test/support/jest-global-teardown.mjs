/** jest's globalTeardown: drops the run's template database, stops the embedded PostgreSQL. */
export default async function globalTeardown() {
  const teardown = globalThis.__grcTestDatabaseTeardown;
  delete globalThis.__grcTestDatabaseTeardown;
  await teardown?.();
}
