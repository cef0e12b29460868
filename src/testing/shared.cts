import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressOf,
  handleOn,
  type IntegrationApi,
  type ServiceAddress,
  startIntegrationApi,
  type StartOptions,
} from './service.cjs';

/** Names the file describing the shared service, for jest's workers (they inherit it). */
export const SHARED_SERVICE_ENV = 'GRC_INTEGRATION_API_SHARED';

/** Where `globalSetup` keeps the running service for `globalTeardown` (same process). */
const RUNNING = Symbol.for('grc-integration-api.testing.shared');
type Holder = { [RUNNING]?: IntegrationApi };

/**
 * jest's `globalSetup`: starts ONE service for every suite of the run and publishes its address
 * to the workers (an environment variable naming a file in the run directory). Use it as
 * `module.exports = require('grc-integration-api/testing').globalSetup({ … })` in the file
 * jest's `globalSetup` names; suites then call `attachIntegrationApi()`.
 */
export function globalSetup(options: StartOptions = {}): () => Promise<void> {
  return async () => {
    const api = await startIntegrationApi(options);
    // the platform key in it too: the file is the run directory's, readable by its owner only
    const address: ServiceAddress = addressOf(api);
    const file = join(api.runDir, 'shared.json');
    await writeFile(file, JSON.stringify(address), { mode: 0o600 });
    process.env[SHARED_SERVICE_ENV] = file;
    (globalThis as Holder)[RUNNING] = api;
  };
}

/** jest's `globalTeardown`: stops the shared service and removes its run directory. */
export async function globalTeardown(): Promise<void> {
  const holder = globalThis as Holder;
  const api = holder[RUNNING];
  delete holder[RUNNING];
  delete process.env[SHARED_SERVICE_ENV];
  await api?.stop();
}

/**
 * A handle on the service `globalSetup` started, from any suite of the run. Its `stop()` closes
 * its receivers only, and `reset()` empties only the tenants it created, so suites running in
 * parallel keep their data.
 */
export async function attachIntegrationApi(): Promise<IntegrationApi> {
  const file = process.env[SHARED_SERVICE_ENV];
  if (!file) {
    throw new Error(
      `no shared service: ${SHARED_SERVICE_ENV} is unset. Name a file calling ` +
        "require('grc-integration-api/testing').globalSetup() in jest's `globalSetup` " +
        '(and one exporting `globalTeardown` in `globalTeardown`), or use startIntegrationApi().',
    );
  }
  let address: ServiceAddress;
  try {
    address = JSON.parse(readFileSync(file, 'utf8')) as ServiceAddress;
  } catch {
    throw new Error(`the shared service's file ${file} cannot be read: has it been stopped?`);
  }
  return handleOn(address, { owned: false });
}
