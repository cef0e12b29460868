import type { AppConfig } from '../../config/app-config.js';
import { ExpressPlatform } from './express.js';
import { FastifyPlatform } from './fastify.js';
import type { HttpPlatform } from './http-platform.js';

/** The platform `HTTP_ADAPTER` names; one per application (it keeps the app's request hooks). */
export function createHttpPlatform(config: AppConfig): HttpPlatform {
  return config.HTTP_ADAPTER === 'fastify'
    ? new FastifyPlatform(config)
    : new ExpressPlatform(config);
}
