import type { ClaimedRow } from '../repository/delivery-claims.repository.js';

/** How old a chain's reading of its webhook's status and version may be. */
export const VERSION_RECHECK_MS = 100;

interface Reading {
  /** When the statement that read it started. */
  at: number;
  /** The version once read (null: not active); undefined while the look-up runs. */
  version: string | null | undefined;
  /** The look-up under way, if any. */
  pending: Promise<string | null> | null;
}

/**
 * Each webhook's `updated_at` (null: not active), as last read: one look-up per webhook at most
 * every `VERSION_RECHECK_MS / 2`, shared by its chains. A look-up starts once the reading is half
 * that old, so a chain sending to a busy endpoint goes on with the reading it has and never waits
 * for the database between two sends.
 */
export class WebhookVersions {
  private readonly readings = new Map<number, Reading>();

  constructor(
    private readonly lookUp: (webhookId: number) => Promise<string | null>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Whether the row's webhook is still active with the URL and secrets it was claimed with, as
   * read at most `VERSION_RECHECK_MS` ago: a pause, revocation, PATCH or rotation stops the rest
   * of a chain within that time. Synchronous while such a reading is known; otherwise it waits
   * for a look-up.
   */
  unchanged(row: ClaimedRow): boolean | Promise<boolean> {
    const id = row.webhook_id;
    let reading = this.readings.get(id);
    const age = reading ? this.now() - reading.at : Infinity;
    if (reading === undefined || age > VERSION_RECHECK_MS) {
      if (reading?.pending) return reading.pending.then((v) => v === row.webhook_version);
      reading = { at: this.now(), version: undefined, pending: null };
      this.readings.set(id, reading);
      this.refresh(id, reading);
    } else if (age >= VERSION_RECHECK_MS / 2 && reading.pending === null) {
      this.refresh(id, reading);
    }
    if (reading.version !== undefined) return reading.version === row.webhook_version;
    return reading.pending!.then((v) => v === row.webhook_version);
  }

  /**
   * A reading taken by a statement started at `at` (a claim or a chain's extension): used when it
   * is newer than the one known.
   */
  seen(webhookId: number, version: string | null, at: number): void {
    const known = this.readings.get(webhookId);
    if (known && known.at >= at) return;
    this.readings.set(webhookId, { at, version, pending: known?.pending ?? null });
  }

  /** Forgets readings long past use (webhooks no chain has asked about for a while). */
  forgetStale(): void {
    const stale = this.now() - 10 * VERSION_RECHECK_MS;
    for (const [id, reading] of this.readings) {
      if (reading.at < stale && reading.pending === null) this.readings.delete(id);
    }
  }

  private refresh(id: number, reading: Reading): void {
    const at = this.now();
    const pending = this.lookUp(id)
      // unknown is treated as changed: the rest goes back and is claimed again
      .catch(() => null);
    reading.pending = pending;
    void pending.then((version) => {
      const current = this.readings.get(id);
      if (current === undefined) return;
      if (current.pending === pending) current.pending = null;
      if (current.at <= at || current.version === undefined) {
        this.readings.set(id, { at, version, pending: current.pending });
      }
    });
  }
}
