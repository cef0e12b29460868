import { ListenerSettings } from './listener-settings.js';

export { POOL_MODES, type PoolMode } from './database-settings.js';
export { LOG_FORMATS, type LogFormat } from './service-settings.js';
export { proxyTrust, type TrustProxy } from './trust-proxy.js';

/**
 * The whole environment of the service, validated once at start. A bad value stops start-up with
 * a message naming the variable, rather than failing later in the middle of a request.
 */
export class AppConfig extends ListenerSettings {
  get embedded(): boolean {
    return !this.DATABASE_URL;
  }
}
