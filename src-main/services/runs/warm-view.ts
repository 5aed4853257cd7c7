import type { Ledger } from '../../ledger/ledger';
import type { LeaseRow } from '../../ledger/rows';
import { advertisedKey, idleEndsAt, isWarm, type WarmCandidate } from './warm-match';

export interface WarmFacts {
  hostKey: string;
  idleEndsAt: number | null;
}

/** What a view says of a node that is warm; null: it is not. */
export function warmFacts(c: WarmCandidate, now: number): WarmFacts | null {
  if (!isWarm(c, now)) return null;
  return { hostKey: advertisedKey(c.node), idleEndsAt: idleEndsAt(c) };
}

/** The warm nodes now, by lease label: for `tender status`, the ledger view and the
 *  composer ("reuses warm node …"). */
export function warmLeases(
  ledger: Pick<Ledger, 'dormantNodes'>,
  now: number,
  provider?: string,
): Map<string, WarmFacts> {
  const out = new Map<string, WarmFacts>();
  for (const c of ledger.dormantNodes(provider)) {
    const facts = warmFacts(c, now);
    if (facts) out.set(c.node.label, facts);
  }
  return out;
}

/** Whether one lease is warm now, from the node that holds it (a lease change: no scan of
 *  every dormant node). */
export function warmFactsOfLease(
  ledger: Pick<Ledger, 'getNode' | 'getRun' | 'getAttempt'>,
  lease: LeaseRow,
  now: number,
): WarmFacts | null {
  const node = lease.nodeId ? ledger.getNode(lease.nodeId) : undefined;
  const run = node && ledger.getRun(node.runId);
  if (!node || !run || node.stage !== 'dormant') return null;
  return warmFacts({ node, run, attempt: ledger.getAttempt(node.id), lease }, now);
}
