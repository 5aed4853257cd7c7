// A bid asked for, judged against RunPod's market: never above the on-demand price of the
// pod it would rent, never below every offer's minimum.
import type { Offer } from '../../contract/offer';
import { ProviderError } from '../provider';
import type { RunpodShape } from './shape';

/** 0: the default bid (each offer's minimum + 10%); else the bid asked, once checked. */
export function checkBid(shape: RunpodShape, offers: Offer[]): number {
  const refusal = bidRefusal(shape, offers);
  if (refusal) throw new ProviderError(refusal.message, { fatal: true, hint: refusal.hint });
  return shape.bid ?? 0;
}

/** Why a bid asked for cannot rent: above the on-demand price of every offer (rent on-demand
 *  instead), or below every offer's minimum. */
export function bidRefusal(
  shape: RunpodShape,
  offers: Offer[],
): { message: string; hint: string } | null {
  const bid = shape.bid;
  const biddable = offers.filter((o) => o.interruptiblePricePerHour !== undefined);
  if (bid === undefined || biddable.length === 0) return null;
  const onDemand = Math.min(...biddable.map((o) => o.pricePerHour));
  if (bid > onDemand)
    return {
      message: `the bid $${bid}/h is above the on-demand price $${onDemand}/h of the cheapest matching RunPod pod`,
      hint: 'lower the bid, or leave interruptible out to rent on-demand at that price',
    };
  const minimum = Math.min(...biddable.map((o) => o.interruptiblePricePerHour!));
  if (bid < minimum)
    return {
      message: `the bid $${bid}/h is below the lowest RunPod minimum bid $${minimum}/h for this pool`,
      hint: `bid at least $${minimum}/h, or leave bid out (minimum + 10%)`,
    };
  return null;
}
