import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppConfig } from './app-config.js';

export class ConfigError extends Error {}

/** Builds the config from an environment, throwing one error that lists every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig()).concat(
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
  );
  const raw: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = plainToInstance(AppConfig, raw);
  const errors = validateSync(config, { whitelist: true });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
