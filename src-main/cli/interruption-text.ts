import type { LeaseView } from '../contract';

/** How `tender status` and `tender bid` word a lease that is not running, or null when it
 *  runs. An outbid lease says what would bring it back. */
export function interruptionText(l: LeaseView): string | null {
  const id = l.leaseId ?? l.label;
  switch (l.interruption) {
    case 'outbid': {
      const bid = l.bid == null ? '' : ` bid ${usd(l.bid)},`;
      const min = l.minBid == null ? '' : ` now min ${usd(l.minBid)}`;
      const raise = l.minBid == null ? 'X' : (l.minBid * 1.1).toFixed(3);
      return `lease ${id} is outbid:${bid}${min} — \`tender bid ${id} ${raise}\` or let recovery move it (it bills its disk meanwhile)`;
    }
    case 'stopped':
      return `lease ${id} is stopped, its disk kept (it bills storage meanwhile): one that stopped itself for outputs nobody collected is started, collected and destroyed by the next \`tender status\`; \`tender down ${id}\` destroys it`;
    case 'exited':
      return `lease ${id} exited: its container stopped`;
    default:
      return null;
  }
}

function usd(n: number): string {
  return `$${n.toFixed(3)}/h`;
}
