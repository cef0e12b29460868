import { describe, expect, it } from '@jest/globals';
import { claimedRow } from './delivery-fixtures.spec-support.js';
import { groupChains } from './send-chains.js';

describe('groupChains', () => {
  it("splits a claim into its webhooks' chains, each in sending order", () => {
    const rows = [
      claimedRow(1, { webhook_id: 7, chain: 0, turn: '3' }),
      claimedRow(2, { webhook_id: 7, chain: 1, turn: '2' }),
      claimedRow(3, { webhook_id: 8, chain: 0, turn: '1' }),
      claimedRow(4, { webhook_id: 7, chain: 0, turn: '1' }),
      claimedRow(5, { webhook_id: 7, chain: 0, turn: '10' }),
    ];
    const ids = groupChains(rows).map((chain) => chain.map((row) => row.id));
    // turns compare as numbers, not text ('10' after '3')
    expect(ids).toEqual([['4', '1', '5'], ['2'], ['3']]);
  });

  it('gives nothing for an empty claim', () => {
    expect(groupChains([])).toEqual([]);
  });
});
