// An interruptible lease on Vast.ai: what its facts record at create, the check that it
// really is a bid, and a change of its bid. The arithmetic of bids is in bids.ts.
import type { Offer } from '../../contract/offer';
import { TenderError } from '../../base/tender-error';
import { ProviderError, type BidChange, type LeaseFacts } from '../provider';
import type { VastApiClient } from './api-client';
import { aboveOnDemand, MAX_BID, MIN_BID, perHour } from './bids';
import { instanceIdOf } from './lease-facts';
import { num } from './offers';
import { isGoneInstance } from './status';

/** How a lease that came back on-demand is named in its boot failure (and kept out of the
 *  failed-hosts list: the host did nothing wrong). */
export const NOT_A_BID = 'was rented on-demand, not as the bid Tender made';

/** A bid search without a bid price rents on-demand, silently (vast-cli PR #403): an
 *  interruptible lease that Vast.ai does not show as a bid fails its boot, so the
 *  NodeManager destroys it, confirms it gone, and replaces it, like any failed boot. */
export function notABid(instanceId: string): ProviderError {
  return new ProviderError(`Vast.ai instance ${instanceId} ${NOT_A_BID} (is_bid is not true)`, {
    fatal: true,
    hint: 'Tender destroys it and bids again on another offer; an on-demand lease bills its full price',
  });
}

/** The facts of an interruptible lease just created: it bills its bid plus storage, and
 *  remembers the on-demand price its bid may never exceed. */
export function bidFacts(lease: LeaseFacts, offer: Offer, bid: number): LeaseFacts {
  return {
    ...lease,
    pricePerHour: round6(bid + offer.storagePricePerHour),
    metadata: {
      ...lease.metadata,
      interruptible: 'true',
      bid: String(bid),
      on_demand_gpu_price_per_hour: String(offer.gpuPricePerHour),
    },
  };
}

/** An interruptible lease found by its label carries the intent too, so its first look
 *  still checks that it is a bid. */
export function withBidIntent(lease: LeaseFacts): LeaseFacts {
  return { ...lease, metadata: { ...lease.metadata, interruptible: 'true' } };
}

/** Sets the bid of the instance behind `lease`, after checking it against what the instance
 *  shows now: a bid instance, the bid at least its `min_bid` (below, it stays stopped and
 *  bills its disk) and at most the on-demand price recorded at create. */
export async function changeLeaseBid(
  api: VastApiClient,
  lease: LeaseFacts,
  bid: number,
  signal: AbortSignal,
): Promise<BidChange> {
  const id = instanceIdOf(lease.destroyHandle);
  if (!id) throw new ProviderError(`bad vastai lease handle ${lease.leaseId}`, { fatal: true });
  if (bid < MIN_BID || bid > MAX_BID)
    throw new TenderError(
      'bad_input',
      `a Vast.ai bid is from $${MIN_BID}/h to $${MAX_BID}/h, not ${perHour(bid)}`,
    );
  const inst = await api.showInstance(id, signal);
  if (isGoneInstance(inst) || inst === null)
    throw new TenderError('not_found', `Vast.ai instance ${id} is gone`, 'see `tender status`');
  if (inst.is_bid !== true)
    throw new TenderError(
      'bad_input',
      `lease ${lease.leaseId} is on-demand: only an interruptible lease has a bid`,
      'Vast.ai cannot change how a lease is rented; run with --interruptible for a bid',
    );
  const onDemand = num(Number(lease.metadata.on_demand_gpu_price_per_hour));
  if (onDemand !== null && bid > onDemand) {
    const refused = aboveOnDemand(onDemand);
    throw new TenderError('bad_input', refused.message, refused.hint);
  }
  const minBid = num(inst.min_bid);
  if (minBid !== null && bid < minBid)
    throw new TenderError(
      'bad_input',
      `a bid of ${perHour(bid)} is below the ${perHour(minBid)} that runs lease ${lease.leaseId} now: it would stay stopped, billing its disk`,
      `bid at least ${minBid.toFixed(3)}`,
    );
  await api.changeBid(id, bid, signal);
  return { bid, minBid };
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
