import type { INestApplication } from '@nestjs/common';

/**
 * Embedded first start: seeds the demo tenant once and prints its credentials.
 * Filled in by the auth/CLI work (demo seed); a no-op until then.
 */
export async function onFirstStart(_app: INestApplication): Promise<void> {}
