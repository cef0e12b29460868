// The same kit from an ES module consumer: `node consumer.mjs` prints what it imported.
import { ALL_SCOPES, startIntegrationApi } from 'grc-integration-api/testing';
import * as kit from 'grc-integration-api';

process.stdout.write(
  `${JSON.stringify({
    esm: typeof startIntegrationApi,
    root: typeof kit.startIntegrationApi,
    scopes: ALL_SCOPES.length,
  })}\n`,
);
