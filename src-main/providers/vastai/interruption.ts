import type { LeaseCondition } from '../provider';
import { num } from './offers';

/** What a listed Vast.ai instance is doing, for the reconciler (`LeaseFacts.condition`).
 *
 *  An interruptible instance (`is_bid: true`) bills its bid: its `dph_base` is the bid, and
 *  `min_bid` is the lowest bid that runs on that machine now. When a higher bid (or an
 *  on-demand renter) takes the machine, Vast.ai stops the instance and keeps its disk:
 *  `actual_status` stopped, `cur_state`/`intended_status`/`next_state` stopped (dstack's
 *  failure check; renter autobidders read the same fields), with `dph_base < min_bid`.
 *  Raising the bid to `min_bid` or more makes it run again. A stopped bid instance whose
 *  bid still meets the minimum was stopped by someone, not outbid.
 *
 *  `offline` and `unknown` (no heartbeat from the host) say nothing about the instance
 *  itself: no condition, so nothing is recorded until the host is heard again. */
export function conditionOf(inst: Record<string, unknown>): LeaseCondition | undefined {
  const raw = inst.actual_status;
  const status = typeof raw === 'string' && raw.trim() ? raw.trim().toLowerCase() : null;
  const isBid = inst.is_bid === true;
  const bid = isBid ? (num(inst.dph_base) ?? undefined) : undefined;
  const minBid = isBid ? (num(inst.min_bid) ?? undefined) : undefined;
  const prices = {
    ...(bid !== undefined ? { bid } : {}),
    ...(minBid !== undefined ? { minBid } : {}),
  };
  const state = stateOf(status, bid, minBid);
  return state ? { state, ...prices } : undefined;
}

function stateOf(
  status: string | null,
  bid: number | undefined,
  minBid: number | undefined,
): LeaseCondition['state'] | null {
  switch (status) {
    case 'running':
      return 'running';
    case null:
    case 'created':
    case 'loading':
    case 'rebooting':
      return 'loading';
    case 'stopped':
    case 'frozen':
      return bid !== undefined && minBid !== undefined && bid < minBid ? 'outbid' : 'stopped';
    case 'exited':
      return 'exited';
    default:
      return null;
  }
}
