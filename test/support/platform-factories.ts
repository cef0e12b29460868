import type { INestApplication } from '@nestjs/common';
import { PlatformKeysService } from '../../src/modules/platform-keys/platform-keys.service.js';
import {
  PLATFORM_SCOPES,
  type PlatformScope,
} from '../../src/modules/platform-keys/platform-scopes.js';
import { call, type ApiResponse, type RequestOptions } from './http.js';
import { rememberSecret } from './secrets.js';

export const ALL_PLATFORM_SCOPES: readonly PlatformScope[] = PLATFORM_SCOPES;

export interface TestPlatformKey {
  keyId: number;
  key: string;
  /** `Bearer gpk_…` */
  auth: string;
}

/** A platform key made as the CLI makes one (`platform-key create`). */
export async function createPlatformKey(
  app: INestApplication,
  scopes: readonly PlatformScope[] = ALL_PLATFORM_SCOPES,
  name = 'test',
): Promise<TestPlatformKey> {
  const made = await app.get(PlatformKeysService).create(name, scopes);
  rememberSecret(made.key);
  return { keyId: made.key_id, key: made.key, auth: `Bearer ${made.key}` };
}

export interface PlatformRequestOptions extends RequestOptions {
  /** Sent as `X-Acting-User`. */
  actor?: string;
}

/** A request to the platform API: `path` is relative to `/platform/v1` unless it starts with `/metrics` or `http`. */
export function platformCall(
  t: { platformUrl: string },
  method: string,
  path: string,
  options: PlatformRequestOptions = {},
): Promise<ApiResponse> {
  const { actor, ...rest } = options;
  const headers = { ...rest.headers, ...(actor === undefined ? {} : { 'x-acting-user': actor }) };
  const url = /^(https?:|\/metrics)/.test(path)
    ? path.startsWith('http')
      ? path
      : `${t.platformUrl}${path}`
    : `${t.platformUrl}/platform/v1${path}`;
  return call(t.platformUrl, method, url, { ...rest, headers });
}
