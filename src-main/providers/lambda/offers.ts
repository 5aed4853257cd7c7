import type { Offer, OfferFilter } from '../../contract/offer';
import { selectAskedGpus } from '../gpu-names';
import type { InstanceTypeEntry } from './api-client';
import { PROVIDER } from './kind';

/** An offer with what a launch needs: `offerId` is `<instance type>@<region>`. */
export interface LambdaOffer extends Offer {
  instanceType: string;
  region: string;
}

/** `gpu_1x_a100_sxm4@us-east-1` → its parts; null when it is not one. */
export function parseOfferId(id: string): { instanceType: string; region: string } | null {
  const m = /^([a-z0-9_]+)@([a-z0-9-]+)$/i.exec(id);
  return m ? { instanceType: m[1]!, region: m[2]! } : null;
}

/** VRAM per GPU in GB from Lambda's words: `A100 (40 GB SXM4)` → 40, `8x H100 (80 GB SXM5)`
 *  → 80; 0 when they give none (a CPU type, or words we do not know). */
export function vramOf(description: string): number {
  const m = /(\d+(?:\.\d+)?)\s*GB\b/i.exec(description);
  return m ? Number(m[1]) : 0;
}

/** The GPU's name as Lambda writes it: `gpu_description` (`A100 (40 GB SXM4)`), else the
 *  type's description without its count (`1x A100 (40 GB SXM4)` → `A100 (40 GB SXM4)`). */
export function gpuNameOf(entry: InstanceTypeEntry): string {
  const t = entry.instance_type;
  return t.gpu_description.trim() || t.description.replace(/^\s*\d+x\s+/i, '').trim() || t.name;
}

/** One `Offer` per instance type and region with capacity. Lambda prices the whole VM
 *  (GPUs, CPU, RAM and its fixed disk) in one `price_cents_per_hour`: that ÷ 100 is the
 *  all-in $/h; storage costs nothing extra. Lambda sells no interruptible instances. */
export function offersOf(entries: InstanceTypeEntry[]): LambdaOffer[] {
  const out: LambdaOffer[] = [];
  for (const entry of entries) {
    const t = entry.instance_type;
    if (t.specs.gpus < 1) continue; // CPU-only types rent no GPU
    const price = t.price_cents_per_hour / 100;
    for (const region of entry.regions_with_capacity_available) {
      out.push({
        provider: PROVIDER,
        offerId: `${t.name}@${region.name}`,
        machineId: t.name,
        instanceType: t.name,
        region: region.name,
        gpuName: gpuNameOf(entry),
        gpuCount: t.specs.gpus,
        vramGb: vramOf(t.gpu_description || t.description),
        gpuPricePerHour: price,
        storagePricePerHour: 0,
        pricePerHour: price,
        // Lambda's own datacenters: no host reliability score published, nothing unverified.
        reliability: null,
        verified: true,
        downMbps: 0,
        upMbps: 0,
        location: region.description,
        cudaMaxGood: null,
        dlperf: null,
        directPorts: 0,
      });
    }
  }
  return out;
}

/** Whether a region a person asked for (`us-east-1`, `us`, `virginia`) is this one. */
export function isRegionAskedFor(asked: string, name: string, description: string | null): boolean {
  const a = asked.trim().toLowerCase();
  if (a === '') return true;
  const n = name.toLowerCase();
  return n === a || n.startsWith(`${a}-`) || (description ?? '').toLowerCase().includes(a);
}

/** The offers matching `filter`, cheapest first (ties by id, so the order is stable).
 *  Honoured: gpu, gpuCount (exactly), minVramGb, maxPrice, region, diskGb (the type's fixed
 *  disk must hold it), interruptible (none: Lambda sells none), limit. Lambda gives no
 *  reliability, bandwidth or verification figures: those filters do not narrow. */
export function selectOffers(
  offers: LambdaOffer[],
  filter: OfferFilter,
  diskOf: (instanceType: string) => number = () => Number.POSITIVE_INFINITY,
): LambdaOffer[] {
  if (filter.interruptible === true) return [];
  const gpus =
    filter.gpu === undefined
      ? null
      : selectAskedGpus(
          filter.gpu,
          offers.map((o) => o.gpuName),
        );
  return offers
    .filter(
      (o) =>
        (gpus === null || gpus.has(o.gpuName)) &&
        o.gpuCount === filter.gpuCount &&
        (filter.minVramGb === undefined || o.vramGb >= filter.minVramGb) &&
        (filter.maxPrice === undefined || o.pricePerHour <= filter.maxPrice) &&
        (filter.region === undefined || isRegionAskedFor(filter.region, o.region, o.location)) &&
        !(diskOf(o.instanceType) > 0 && diskOf(o.instanceType) < filter.diskGb),
    )
    .sort((a, b) => a.pricePerHour - b.pricePerHour || a.offerId.localeCompare(b.offerId))
    .slice(0, filter.limit);
}

/** An offer as the contract shows it (without the launch's own fields). */
export function toOffer(o: LambdaOffer): Offer {
  const { instanceType: _t, region: _r, ...offer } = o;
  return offer;
}
