// The testing kit for ESM consumers: the CommonJS kit, re-exported (one implementation).
export {
  ALL_SCOPES,
  cleanStaleRuns,
  startIntegrationApi,
  type CliResult,
  type CreatedClient,
  type CreatedTenant,
  type CreateTenantOptions,
  type IntegrationApi,
  type StartOptions,
  type WebhookDelivery,
  type WebhookReceiver,
} from './index.cjs';
