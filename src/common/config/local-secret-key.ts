import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * In embedded mode the webhook secret key is generated once and kept beside the database, so that
 * `npm start` needs no configuration and secrets stay readable across restarts.
 */
export async function ensureLocalSecretKey(dataDir: string): Promise<string> {
  const file = resolve(dataDir, 'webhook-secret.key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const key = randomBytes(32).toString('base64');
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
