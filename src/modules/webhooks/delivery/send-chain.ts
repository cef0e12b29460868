import type { ClaimedRow } from '../repository/delivery-claims.repository.js';

/** A claimed row and when the statement that claimed it started (its lease runs from there). */
export interface ChainRow {
  row: ClaimedRow;
  claimedAt: number;
}

/**
 * Rows left in a chain when it asks for more of its webhook's due rows, so that they arrive while
 * it is still sending rather than after.
 */
export const EXTEND_AHEAD = 8;
/**
 * A chain asks for more only while its sends take less than this share of its window: a slow
 * receiver's chain would only see the new rows go late and be handed back.
 */
const EXTEND_MAX_SEND_SHARE = 1 / 8;

/** What a chain works with: the worker's state, the sender, the database (all injected). */
export interface SendChainDeps {
  /** Milliseconds, monotonic (`performance.now`). */
  now(): number;
  /** A row starts only this long after its claim, so that it ends within its lease. */
  windowMs: number;
  /** False once the worker stops: the rest goes back. */
  running(): boolean;
  /** Whether the row's webhook is unchanged, synchronously when a fresh enough reading is known. */
  unchanged(row: ClaimedRow): boolean | Promise<boolean>;
  /** Sends one row and queues its result; true when the receiver took it. */
  deliver(entry: ChainRow): Promise<boolean>;
  /** Queues rows handed back unsent (due again at once, no attempt recorded). */
  release(rows: readonly ClaimedRow[]): void;
  /** Whether this process may keep the chain's slot busy (the tenant's share is not full). */
  mayExtend(tenantId: number): boolean;
  /** Claims more of the tail's webhook's due rows for the chain ([] when none or it changed). */
  extend(tail: ClaimedRow): Promise<ChainRow[]>;
}

/**
 * Sends a chain's rows one after another, its last row last. A healthy chain asks for its
 * webhook's next due rows a few rows before its end and carries on with them without waiting: a
 * busy endpoint's slots stay busy instead of going back and forth through a claim and a result
 * write. After an unsuccessful attempt, on shutdown, once its webhook changed (paused, revoked,
 * edited, rotated), or once a row could no longer finish within its lease, the rest go back
 * unsent. Answers how many segments (the claim and each extension that brought rows) it ran.
 *
 * The last row holds the chain's slot until its result is written, so more rows are only ever
 * asked for while it is unsent, and it is sent only once they are claimed (they carry the slot
 * on): were they claimed after its result freed the slot, a claim in between could start another
 * chain, and the endpoint would get one send more than its limit.
 */
export async function runChain(first: readonly ChainRow[], deps: SendChainDeps): Promise<number> {
  const rows = [...first];
  let segments = 1;
  let extending: Promise<ChainRow[]> | null = null;
  // the last request for more found none: the chain ends with its rows
  let dry = false;
  let lastSendMs = Infinity;
  const mayExtend = (tail: ClaimedRow) =>
    deps.running() &&
    lastSendMs < deps.windowMs * EXTEND_MAX_SEND_SHARE &&
    deps.mayExtend(tail.tenant_id);
  // a failed request for more is none: the last row must not wait on it forever, nor leak
  const extend = (tail: ClaimedRow): Promise<ChainRow[]> =>
    deps.extend(tail).catch((): ChainRow[] => []);
  const giveBack = async (from: number) => {
    deps.release(rows.slice(from).map((entry) => entry.row));
    if (extending) deps.release((await extending).map((entry) => entry.row));
    extending = null;
  };
  const late = (entry: ChainRow) => deps.now() - entry.claimedAt > deps.windowMs;

  for (let i = 0; i < rows.length; i++) {
    const entry = rows[i]!;
    if (i > 0) {
      const seen = deps.unchanged(entry.row);
      // lateness again after a look-up, which may have waited for a connection
      const unchanged = typeof seen === 'boolean' ? seen : (await seen) && !late(entry);
      if (late(entry) || !deps.running() || !unchanged) {
        await giveBack(i);
        return segments;
      }
    }
    if (!extending && !dry && rows.length - i <= EXTEND_AHEAD && mayExtend(entry.row)) {
      extending = extend(rows.at(-1)!.row);
    }
    if (extending && i === rows.length - 1) {
      const more = await extending;
      extending = null;
      if (more.length === 0) dry = true;
      else {
        rows.push(...more);
        segments += 1;
      }
      // the wait may have taken the row past its window, or the worker may be stopping
      if (late(entry) || !deps.running()) {
        await giveBack(i);
        return segments;
      }
    }
    const started = deps.now();
    const ok = await deps.deliver(entry);
    lastSendMs = deps.now() - started;
    if (!ok) {
      await giveBack(i + 1);
      return segments;
    }
  }
  return segments;
}
