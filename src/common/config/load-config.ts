import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppConfig } from './app-config.js';

export class ConfigError extends Error {}

/** Every variable the config reads: its settings with a default, and those without one. */
export const CONFIG_KEYS: readonly string[] = [
  ...new Set([
    ...Object.keys(new AppConfig()),
    // declared without a default: absent from an instance's keys where fields are not defined
    'DATABASE_URL',
    'WEBHOOK_SECRET_KEY',
    'REDIS_URL',
    'ADMIN_SOCKET',
    'READY_FILE',
    'DATABASE_LISTEN_URL',
    'RETENTION_EVENT_SECONDS',
    'LOG_FORMAT',
    'METRICS_TOKEN',
    'METRICS_PORT',
  ]),
];

/** Builds the config from an environment, throwing one error that lists every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of CONFIG_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return validated(plainToInstance(AppConfig, raw));
}

/**
 * The settings a process knows only once it runs (the embedded database's URL, the local webhook
 * key, the CLI's own switches): a new config, validated and frozen like the first, which stays as
 * it was. A config is never changed after validation.
 */
export function configWith(
  config: AppConfig,
  changes: Partial<
    Pick<AppConfig, 'DATABASE_URL' | 'WEBHOOK_SECRET_KEY' | 'SEED_DEMO' | 'WORKERS_ENABLED'>
  >,
): AppConfig {
  return validated(Object.assign(Object.create(AppConfig.prototype) as AppConfig, config, changes));
}

/**
 * What serving needs beyond valid settings: with DATABASE_URL (an external database) the key that
 * encrypts webhook secrets must be given; embedded mode makes one under DATA_DIR instead. The
 * migration runner and the OpenAPI export need no key, so this is not part of `loadConfig`.
 */
export function checkServingConfig(config: AppConfig): void {
  if (config.DATABASE_URL && !config.WEBHOOK_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  WEBHOOK_SECRET_KEY: required when DATABASE_URL is set (32 bytes, base64)',
    );
  }
}

function validated(config: AppConfig): AppConfig {
  const errors = validateSync(config, { whitelist: true });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(config);
}
