/**
 * glibc malloc settings `npm start` and the container image give the service (glibc reads them
 * only when a process starts, so they are set before `node`, not here). The service's threads
 * (the event loop, V8's helpers, the JSON worker, libuv's pool) each got an arena of their own and
 * kept what they freed, and buffers of big bodies stayed mapped after their release: two arenas,
 * and blocks from 128 KiB on mapped and unmapped on their own, gave RSS back after each flood of
 * big bodies (bench/README.md, "Memory at rest and under big bodies").
 */
export const SERVICE_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * Takes the service's own malloc settings out of the environment its children inherit: the
 * embedded PostgreSQL has its own (embedded-database.ts; a fixed mmap threshold would fault a
 * statement's memory in afresh each time). A value other than the service's (an operator's) stays.
 */
export function keepMallocSettingsFromChildren(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(SERVICE_MALLOC_ENV)) {
    if (env[name] === value) delete env[name];
  }
}
