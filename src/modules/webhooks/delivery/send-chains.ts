import type { ClaimedRow } from '../repository/delivery-claims.repository.js';

/** A claim's rows as chains, each in sending order. */
export function groupChains(rows: ClaimedRow[]): ClaimedRow[][] {
  const chains = new Map<string, ClaimedRow[]>();
  for (const row of rows) {
    const key = `${row.webhook_id}:${row.chain}`;
    const chain = chains.get(key);
    if (chain) chain.push(row);
    else chains.set(key, [row]);
  }
  const byTurn = (a: ClaimedRow, b: ClaimedRow) => Number(a.turn) - Number(b.turn);
  return [...chains.values()].map((chain) => chain.sort(byTurn));
}
