import type { Offer, OfferFilter } from '../../contract/offer';
import { selectAskedGpus } from '../gpu-names';
import type { GpuTypeRow } from './api-client';
import { PROVIDER } from './lease-facts';

export type Cloud = 'SECURE' | 'COMMUNITY';

/** The offers of one lowestPrice answer (asked for one cloud and `filter.gpuCount` GPUs):
 *  one per GPU type in stock, priced for the whole pod.
 *
 *  `uninterruptablePrice` and `minimumBidPrice` are per GPU (dstack: `bidPerGpu = price /
 *  gpu_count`), so a pod's price is that × `gpuCount`. `stockStatus: null` means none
 *  available (gpuhunt skips it). RunPod's answer has no storage price: the container disk
 *  is not in `pricePerHour`. */
export function offersOf(rows: GpuTypeRow[], cloud: Cloud, filter: OfferFilter): Offer[] {
  const count = filter.gpuCount;
  const offers: Offer[] = [];
  for (const row of rows) {
    const lp = row.lowestPrice;
    if (!lp || lp.stockStatus === null || lp.uninterruptablePrice === null) continue;
    if (cloud === 'SECURE' ? !row.secureCloud : !row.communityCloud) continue;
    if (row.maxGpuCount !== null && count > row.maxGpuCount) continue;
    const bidPrice =
      lp.minimumBidPrice !== null && lp.minimumBidPrice > 0 ? lp.minimumBidPrice : null;
    const price = round(lp.uninterruptablePrice * count);
    offers.push({
      provider: PROVIDER,
      offerId: `${row.id}|${cloud}`,
      machineId: row.id, // RunPod picks the machine at create; the GPU type is what is rented
      gpuName: row.displayName,
      gpuCount: count,
      vramGb: row.memoryInGb,
      gpuPricePerHour: price,
      storagePricePerHour: 0,
      pricePerHour: price,
      ...(bidPrice !== null ? { interruptiblePricePerHour: round(bidPrice * count) } : {}),
      reliability: null, // RunPod publishes no host reliability score
      verified: cloud === 'SECURE',
      downMbps: 0,
      upMbps: 0,
      location: filter.region ?? null,
      cudaMaxGood: null,
      dlperf: null,
      directPorts: 1,
    });
  }
  return offers;
}

/** The filter's offers, cheapest first (by the minimum bid on the interruptible market). */
export function selectOffers(offers: Offer[], filter: OfferFilter): Offer[] {
  const priceOf = (o: Offer) =>
    filter.interruptible ? (o.interruptiblePricePerHour ?? Infinity) : o.pricePerHour;
  const typeOf = (o: Offer) => o.offerId.split('|')[0] ?? '';
  const gpus = filter.gpu
    ? selectAskedGpus(
        filter.gpu,
        offers.flatMap((o) => [o.gpuName, typeOf(o)]),
      )
    : null;
  return offers
    .filter((o) => {
      if (filter.interruptible && o.interruptiblePricePerHour === undefined) return false;
      if (filter.verified === true && !o.verified) return false;
      if (filter.minVramGb !== undefined && o.vramGb < filter.minVramGb) return false;
      if (filter.maxPrice !== undefined && priceOf(o) > filter.maxPrice) return false;
      if (gpus && !gpus.has(o.gpuName) && !gpus.has(typeOf(o))) return false;
      return true;
    })
    .sort((a, b) => priceOf(a) - priceOf(b) || a.offerId.localeCompare(b.offerId))
    .slice(0, filter.limit);
}

/** The bid per GPU a pod is rented at: the one asked for (the whole pod's, split over its
 *  GPUs), else the offer's minimum + 10% (as Vast's default). */
export function bidPerGpu(offer: Offer, asked: number | undefined): number {
  if (asked !== undefined) return round(asked / offer.gpuCount);
  const min = (offer.interruptiblePricePerHour ?? 0) / offer.gpuCount;
  return round(min * 1.1);
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
