import { InitialSchema1764000000000 } from './1764000000000-initial-schema.js';

/** Every migration, in order. Listed explicitly so the build, the CLI and the tests agree. */
export const MIGRATIONS = [InitialSchema1764000000000];
