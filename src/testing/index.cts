/**
 * The testing kit (`grc-integration-api/testing`): starts the service as a child process for a
 * consumer's own test suite, CommonJS or ESM. CommonJS on purpose, with `node:` modules and
 * openapi-fetch (which ships CommonJS) only: it loads in any jest set-up, whatever that suite's
 * module system; the service itself runs in the child on a Node that can run it (node-binary.cts).
 */
export { ALL_PLATFORM_SCOPES, ALL_SCOPES } from './scopes.cjs';
export { cleanStaleRuns } from './runs.cjs';
export {
  DEFAULT_ACTING_USER,
  startIntegrationApi,
  type CliResult,
  type CreatedClient,
  type CreatedTenant,
  type CreateTenantOptions,
  type IntegrationApi,
  type PlatformClient,
  type StartOptions,
} from './service.cjs';
export {
  attachIntegrationApi,
  globalSetup,
  globalTeardown,
  SHARED_SERVICE_ENV,
} from './shared.cjs';
export type {
  AnyWebhookDelivery,
  WaitForOptions,
  WebhookDelivery,
  WebhookReceiver,
} from './receiver.cjs';
export type { EventData, EventPayload, EventType, SubscribableEventType } from './events.cjs';
