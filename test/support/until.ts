/** Polls `condition` every 10 ms until it holds; fails after 10 s, naming `what` it waited for. */
export async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}
