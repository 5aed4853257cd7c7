import type { LeaseView } from '../../../src-main/contract';
import { isLive } from '../../lib/billing';

/** A lease this far above the minimum bid wins back its machine with some headroom. */
const RAISE_MARGIN = 0.1;

/** What the lease cell says of a lease that is not running, and how loudly. */
export function interruptionBadge(
  lease: LeaseView,
): { text: string; title: string; colour: 'red' | 'amber' } | null {
  if (!isLive(lease) || !lease.interruption) return null;
  switch (lease.interruption) {
    case 'outbid':
      return {
        text: 'outbid',
        colour: 'red',
        title: `Outbid${lease.bid != null ? `: bid $${lease.bid.toFixed(3)}/h` : ''}${
          lease.minBid != null ? `, now min $${lease.minBid.toFixed(3)}/h` : ''
        }. Stopped with its disk kept (billing storage only) until its bid wins: raise it, or let recovery move the job.`,
      };
    case 'stopped':
      return {
        text: 'stopped',
        colour: 'amber',
        title:
          'Stopped with its disk kept (billing storage only). One that stopped itself for outputs nobody collected is started again, collected and destroyed when Tender next looks (app start, tender status); Tear down destroys it and its disk.',
      };
    case 'exited':
      return { text: 'exited', colour: 'red', title: 'Its container stopped' };
  }
}

/** A live interruptible lease can have its bid raised: an outbid one to run again. */
export function canRaiseBid(lease: LeaseView | null): lease is LeaseView {
  return lease !== null && lease.state === 'created' && lease.interruption === 'outbid';
}

/** The bid the dialog proposes: the current minimum plus a margin, in thousandths. */
export function suggestedBid(lease: LeaseView): string {
  const base = lease.minBid ?? lease.bid;
  if (base == null) return '';
  return (Math.ceil(base * (1 + RAISE_MARGIN) * 1000 - 1e-6) / 1000).toFixed(3);
}

/** The typed bid, or why it is not one ($/h for the machine; a leading $ is fine). */
export function parseBid(text: string): { bid: number } | { error: string } {
  const t = text.trim().replace(/^\$/, '').replace(/\/h$/, '');
  const bid = Number(t);
  if (t === '' || !Number.isFinite(bid) || bid <= 0)
    return { error: 'a bid is a price in $/h, such as 0.32' };
  return { bid };
}
