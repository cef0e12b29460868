/**
 * Polls `probe` every 10 ms until it answers something other than `undefined` or `false`, and
 * resolves with that; fails after 10 s, naming `what` it waited for.
 */
export async function until<T>(what: string, probe: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}
