/** Sends in flight at once per process. */
export const MAX_IN_FLIGHT = 64;
/**
 * Of those, what one tenant may hold: the rest always stays open to the other tenants, however
 * many of this tenant's sends hang on receivers that never answer.
 */
export const MAX_IN_FLIGHT_PER_TENANT = MAX_IN_FLIGHT / 2;
/** Below this many free slots a busy worker waits for more sends to finish before claiming. */
export const MIN_CLAIM = MAX_IN_FLIGHT / 4;
/**
 * Due deliveries one in-flight slot of a healthy webhook may carry in one claim (or one extension
 * of its chain), sent one after another: a slot then costs one claim and one result write per
 * chain instead of per delivery.
 */
export const CHAIN_LENGTH = 32;
/**
 * After a claim that found nothing, the next one waits this long: every staging notifies, and at
 * a thousand a second back-to-back claims would find the busy endpoints' slots taken anyway (their
 * chains pick up the new rows themselves, see `runChain`).
 */
export const EMPTY_CLAIM_GAP_MS = 10;

/** How many chains the next claim may take with `inFlight` sends under way; 0: do not claim. */
export function chainsToClaim(inFlight: number): number {
  const wanted = MAX_IN_FLIGHT - inFlight;
  // Under load, claim in sizeable batches rather than one row per finished send.
  if (wanted < MIN_CLAIM && inFlight > 0) return 0;
  return Math.max(wanted, 0);
}

/**
 * Whether a chain may claim its webhook's next due rows and so keep its slot, rather than hand
 * it back to the claim, which deals slots round-robin across tenants and their webhooks: only
 * while its tenant's share (`tenantInFlight`, this chain included) and the process have room.
 */
export function mayKeepSlot(tenantInFlight: number, inFlight: number): boolean {
  return tenantInFlight < MAX_IN_FLIGHT_PER_TENANT && inFlight <= MAX_IN_FLIGHT - MIN_CLAIM;
}

/** How long to wait before the next claim, `sinceEmptyMs` after a claim that found nothing. */
export function claimDelayMs(sinceEmptyMs: number): number {
  return Math.max(0, EMPTY_CLAIM_GAP_MS - sinceEmptyMs);
}
