import { resolve } from 'node:path';

/** The settings that decide where the admin socket is (see AppConfig.ADMIN_SOCKET). */
export interface AdminSocketSettings {
  ADMIN_SOCKET?: string | undefined;
  DATABASE_URL?: string | undefined;
  DATA_DIR?: string | undefined;
}

/**
 * Where the running service answers administration commands, or null for nowhere. Read by the CLI
 * from its environment before anything heavy is loaded, so it takes plain strings.
 */
export function adminSocketPath(settings: AdminSocketSettings): string | null {
  const explicit = settings.ADMIN_SOCKET?.trim();
  if (explicit === 'off') return null;
  if (explicit) return resolve(explicit);
  if (settings.DATABASE_URL) return null;
  return resolve(settings.DATA_DIR?.trim() || './.data', 'admin.sock');
}
