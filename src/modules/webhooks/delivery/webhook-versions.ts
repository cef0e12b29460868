import type { ClaimedRow } from '../repository/delivery-claims.repository.js';

/** How old a chain's reading of its webhook's status and version may be. */
export const VERSION_RECHECK_MS = 100;

/**
 * Each webhook's `updated_at` (null: not active), as last read by a chain: one look-up per
 * webhook at most every `VERSION_RECHECK_MS`, shared by its chains.
 */
export class WebhookVersions {
  private readonly versions = new Map<number, { at: number; version: Promise<string | null> }>();

  constructor(private readonly lookUp: (webhookId: number) => Promise<string | null>) {}

  /**
   * Whether the row's webhook is still active with the URL and secrets it was claimed with, as
   * read at most `VERSION_RECHECK_MS` ago: a pause, revocation, PATCH or rotation stops the rest
   * of a chain within that time.
   */
  async unchanged(row: ClaimedRow): Promise<boolean> {
    let seen = this.versions.get(row.webhook_id);
    if (!seen || performance.now() - seen.at > VERSION_RECHECK_MS) {
      const version = this.lookUp(row.webhook_id)
        // unknown is treated as changed: the rest goes back and is claimed again
        .catch(() => null);
      seen = { at: performance.now(), version };
      this.versions.set(row.webhook_id, seen);
    }
    return (await seen.version) === row.webhook_version;
  }

  /** Forgets readings long past use (webhooks no chain has asked about for a while). */
  forgetStale(): void {
    const stale = performance.now() - 10 * VERSION_RECHECK_MS;
    for (const [id, seen] of this.versions) if (seen.at < stale) this.versions.delete(id);
  }
}
