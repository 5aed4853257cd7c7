import type { Offer } from '../../contract/offer';

/** A bid this much above the minimum: one at exactly the minimum loses to the next renter who
 *  bids a cent more, and 10% still leaves an interruptible lease near half of on-demand. */
export const BID_MARGIN = 0.1;

/** Vast.ai's `price` (create, change bid): 0.001 ≤ x ≤ 32 $/h (change_bid's API reference). */
export const MIN_BID = 0.001;
export const MAX_BID = 32;

/** The two prices a bid is judged by, $/h for the machine without storage: the lowest bid it
 *  takes now (`min_bid`) and what it costs on-demand (`dph_base`). */
export interface BidPrices {
  minBid: number;
  onDemand: number;
}

/** An offer's bid prices, or null when it takes no bid. */
export function bidPricesOf(offer: Offer): BidPrices | null {
  if (offer.interruptiblePricePerHour === undefined) return null;
  return {
    minBid: round6(offer.interruptiblePricePerHour - offer.storagePricePerHour),
    onDemand: offer.gpuPricePerHour,
  };
}

/** The bid Tender makes when none is given: the minimum plus the margin, in Vast's
 *  thousandths, never above on-demand. */
export function defaultBid(p: BidPrices): number {
  return Math.min(Math.max(roundUp3(p.minBid * (1 + BID_MARGIN)), MIN_BID), p.onDemand);
}

export type BidVerdict =
  | { kind: 'ok'; bid: number }
  /** Renting the machine on-demand costs less than this bid (dstack#1890 overbid 8×). */
  | { kind: 'above_on_demand'; onDemand: number }
  /** The machine would not run at this bid: it would sit stopped, billing its disk. */
  | { kind: 'below_min'; minBid: number };

/** A bid asked for (or the default) against one machine's prices. */
export function judgeBid(p: BidPrices, asked: number | undefined): BidVerdict {
  if (asked === undefined) return { kind: 'ok', bid: defaultBid(p) };
  if (asked > p.onDemand) return { kind: 'above_on_demand', onDemand: p.onDemand };
  if (asked < p.minBid) return { kind: 'below_min', minBid: p.minBid };
  return { kind: 'ok', bid: asked };
}

export type BidPlan =
  | { kind: 'bids'; bids: { offer: Offer; bid: number }[] }
  | { kind: 'refused'; message: string; hint: string };

/** Where a bid goes, cheapest interruptible offer first: every offer that takes a bid (and
 *  whose minimum is not above its own on-demand price), with the bid asked for or each
 *  one's default. An asked bid goes only to offers it meets; above the on-demand price of
 *  the cheapest of those it is refused: that machine costs less on-demand. */
export function planBids(offers: readonly Offer[], asked: number | undefined): BidPlan {
  const takers = offers.flatMap((offer) => {
    const p = bidPricesOf(offer);
    return p && p.minBid <= p.onDemand ? [{ offer, p }] : [];
  });
  if (asked === undefined)
    return { kind: 'bids', bids: takers.map(({ offer, p }) => ({ offer, bid: defaultBid(p) })) };
  const meeting = takers.filter(({ p }) => judgeBid(p, asked).kind !== 'below_min');
  const first = meeting[0];
  if (!first) {
    const lowest = Math.min(...takers.map(({ p }) => p.minBid));
    return takers.length === 0
      ? { kind: 'bids', bids: [] }
      : {
          kind: 'refused',
          message: `no matching offer runs at a bid of ${perHour(asked)}: the lowest minimum bid is ${perHour(lowest)}`,
          hint: `bid at least ${lowest.toFixed(3)}, or leave bid out (the minimum plus ${BID_MARGIN * 100}%)`,
        };
  }
  const verdict = judgeBid(first.p, asked);
  if (verdict.kind === 'above_on_demand')
    return {
      kind: 'refused',
      ...aboveOnDemand(verdict.onDemand),
    };
  return {
    kind: 'bids',
    bids: meeting
      .filter(({ p }) => asked <= p.onDemand)
      .map(({ offer }) => ({ offer, bid: asked })),
  };
}

/** The refusal of a bid above on-demand, in the words every caller uses. */
export function aboveOnDemand(onDemand: number): { message: string; hint: string } {
  return {
    message: `a bid above the on-demand price ${perHour(onDemand)} rents nothing cheaper; use on-demand`,
    hint: `bid at most ${onDemand.toFixed(3)}, or leave out interruptible and bid`,
  };
}

export function perHour(usd: number): string {
  return `$${usd.toFixed(3)}/h`;
}

function roundUp3(n: number): number {
  // The epsilon keeps 0.231 (0.21 × 1.1, really 0.23100000000000001) from becoming 0.232.
  return Math.ceil(n * 1000 - 1e-6) / 1000;
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
