import { describe, expect, it } from '@jest/globals';
import {
  EMPTY_CLAIM_GAP_MS,
  MAX_IN_FLIGHT,
  MAX_IN_FLIGHT_PER_TENANT,
  MIN_CLAIM,
  chainsToClaim,
  claimDelayMs,
  mayKeepSlot,
} from './worker-limits.js';

describe('chainsToClaim', () => {
  it('claims every free slot of an idle or lightly loaded process', () => {
    expect(chainsToClaim(0)).toBe(MAX_IN_FLIGHT);
    expect(chainsToClaim(10)).toBe(MAX_IN_FLIGHT - 10);
    expect(chainsToClaim(MAX_IN_FLIGHT - MIN_CLAIM)).toBe(MIN_CLAIM);
  });

  it('waits for a sizeable batch of free slots once busy', () => {
    expect(chainsToClaim(MAX_IN_FLIGHT - MIN_CLAIM + 1)).toBe(0);
    expect(chainsToClaim(MAX_IN_FLIGHT)).toBe(0);
    expect(chainsToClaim(MAX_IN_FLIGHT + 3)).toBe(0);
  });
});

describe('mayKeepSlot', () => {
  it('lets a chain keep its slot while its tenant and the process have room', () => {
    expect(mayKeepSlot(1, 1)).toBe(true);
    expect(mayKeepSlot(MAX_IN_FLIGHT_PER_TENANT - 1, MAX_IN_FLIGHT - MIN_CLAIM)).toBe(true);
  });

  it("hands the slot back to the round-robin claim once the tenant's share is full", () => {
    expect(mayKeepSlot(MAX_IN_FLIGHT_PER_TENANT, MAX_IN_FLIGHT_PER_TENANT)).toBe(false);
  });

  it('hands it back once the process is nearly full, so other tenants get claimed', () => {
    expect(mayKeepSlot(1, MAX_IN_FLIGHT - MIN_CLAIM + 1)).toBe(false);
  });
});

describe('claimDelayMs', () => {
  it('spaces a claim after one that found nothing, and only then', () => {
    expect(claimDelayMs(0)).toBe(EMPTY_CLAIM_GAP_MS);
    expect(claimDelayMs(EMPTY_CLAIM_GAP_MS - 4)).toBe(4);
    expect(claimDelayMs(EMPTY_CLAIM_GAP_MS)).toBe(0);
    expect(claimDelayMs(Infinity)).toBe(0);
  });
});
