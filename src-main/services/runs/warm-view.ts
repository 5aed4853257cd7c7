import type { Ledger } from '../../ledger/ledger';
import { advertisedKey, isWarm } from './warm-match';

export interface WarmFacts {
  hostKey: string;
  idleEndsAt: number | null;
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
    if (!isWarm(c, now)) continue;
    const dm = c.lease?.deadMan;
    const idleEndsAt =
      dm?.idleTimeoutMs != null && dm.jobEndedAt !== null ? dm.jobEndedAt + dm.idleTimeoutMs : null;
    out.set(c.node.label, { hostKey: advertisedKey(c.node), idleEndsAt });
  }
  return out;
}
