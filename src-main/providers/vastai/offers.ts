import type { Offer, OfferFilter } from '../../contract/offer';
import { isRecord } from './errors';
import { effectiveDiskGb, regionCodes, SAFE_DEFAULTS } from './filters';
import { vastGpuNames } from './gpu-catalog';

/** Vast.ai prices storage per GB and month of 30 days. Checked on show_instance.yaml's
 *  example: storage_cost 0.149333 $/GB/month × 10 GB / 720 h = storage_total_cost
 *  0.00207407 $/h, and dph_base 1.0 + 0.00207407 = dph_total 1.00207407. */
export const HOURS_PER_STORAGE_MONTH = 30 * 24;

export interface PriceParts {
  /** The machine's $/h (`dph_base`). */
  gpuPricePerHour: number;
  /** $/h for `diskGb` of its storage. */
  storagePricePerHour: number;
  /** What the lease bills per hour. */
  pricePerHour: number;
}

/** The all-in $/h of an offer or instance for `diskGb` of disk: `dph_base` +
 *  `storage_cost` × disk / 720. `dph_total` already holds storage for the search's
 *  `allocated_storage`, so it is used for the GPU part only when `dph_base` is missing —
 *  counting storage twice rather than not at all. Null when no price is given. */
export function allInPrice(raw: Record<string, unknown>, diskGb: number): PriceParts | null {
  const base = num(raw.dph_base);
  const total = num(raw.dph_total);
  const perGbMonth = num(raw.storage_cost);
  const gpu = base ?? total;
  if (gpu === null || gpu < 0) return null;
  let storage = 0;
  if (perGbMonth !== null && perGbMonth >= 0)
    storage = (perGbMonth * diskGb) / HOURS_PER_STORAGE_MONTH;
  else if (base !== null && total !== null && total > base) storage = total - base;
  return {
    gpuPricePerHour: round6(gpu),
    storagePricePerHour: round6(storage),
    pricePerHour: round6(gpu + storage),
  };
}

/** One search row as an `Offer`, priced for `diskGb`; null when a field we rely on is missing
 *  (such a row is never rented). */
export function offerFromRow(row: unknown, diskGb: number): Offer | null {
  if (!isRecord(row)) return null;
  const id = idOf(row.id ?? row.ask_contract_id);
  const machineId = idOf(row.machine_id);
  const price = allInPrice(row, diskGb);
  const gpuCount = num(row.num_gpus);
  if (!id || !machineId || !price || gpuCount === null) return null;
  const vramMb = num(row.gpu_ram);
  const minBid = num(row.min_bid);
  return {
    provider: 'vastai',
    offerId: id,
    machineId,
    gpuName: typeof row.gpu_name === 'string' ? row.gpu_name : 'unknown GPU',
    gpuCount,
    vramGb: vramMb === null ? 0 : Math.round(vramMb / 100) / 10, // MB → GB as Vast counts
    ...price,
    // The all-in interruptible price: the lowest bid plus the same storage (gpuhunt and
    // dstack price Vast's spot offers at min_bid).
    ...(minBid !== null && minBid >= 0
      ? { interruptiblePricePerHour: round6(minBid + price.storagePricePerHour) }
      : {}),
    reliability: num(row.reliability) ?? num(row.reliability2) ?? 0,
    verified: row.verified === true || row.verification === 'verified',
    downMbps: num(row.inet_down) ?? 0,
    upMbps: num(row.inet_up) ?? 0,
    location: typeof row.geolocation === 'string' ? row.geolocation : null,
    cudaMaxGood: num(row.cuda_max_good),
    dlperf: num(row.dlperf),
    directPorts: num(row.direct_port_count) ?? 0,
    ...(typeof row.cpu_arch === 'string' && row.cpu_arch ? { cpuArch: row.cpu_arch } : {}),
  };
}

/** The search answer as offers we would rent: each row re-checked against the filter (and
 *  against rented/rentable, as vast.py does after its own search), hosts in `excluded`
 *  dropped, cheapest all-in first (the interruptible price when the filter asks for that
 *  market), at most `filter.limit`. */
export function selectOffers(
  rows: readonly unknown[],
  filter: OfferFilter,
  excluded: ReadonlySet<string>,
): Offer[] {
  const disk = effectiveDiskGb(filter.diskGb);
  const picked: Offer[] = [];
  for (const row of rows) {
    const offer = offerFromRow(row, disk);
    if (!offer || !isRecord(row) || excluded.has(offer.machineId)) continue;
    if (row.rented === true || row.rentable === false) continue;
    if (!meetsFilter(offer, row, filter, disk)) continue;
    picked.push(offer);
  }
  picked.sort(
    (a, b) =>
      paidPrice(a, filter) - paidPrice(b, filter) ||
      a.pricePerHour - b.pricePerHour ||
      (b.reliability ?? 0) - (a.reliability ?? 0) ||
      a.offerId.localeCompare(b.offerId, 'en', { numeric: true }),
  );
  return picked.slice(0, filter.limit);
}

/** The client-side half of the filter: what buildOfferQuery asked the server for. */
export function meetsFilter(
  offer: Offer,
  row: Record<string, unknown>,
  filter: OfferFilter,
  diskGb: number,
): boolean {
  const names = vastGpuNames(filter.gpu).map(normName);
  if (names.length > 0 && !names.includes(normName(offer.gpuName))) return false;
  if (offer.gpuCount !== filter.gpuCount) return false;
  if (filter.minVramGb !== undefined && (num(row.gpu_ram) ?? 0) < filter.minVramGb * 1000)
    return false;
  if (filter.interruptible && offer.interruptiblePricePerHour === undefined) return false;
  if (filter.maxPrice !== undefined && paidPrice(offer, filter) > filter.maxPrice) return false;
  if ((offer.reliability ?? 0) < (filter.minReliability ?? SAFE_DEFAULTS.minReliability))
    return false;
  if ((filter.verified ?? SAFE_DEFAULTS.verified) && !offer.verified) return false;
  if (offer.downMbps < (filter.minDownMbps ?? SAFE_DEFAULTS.minDownMbps)) return false;
  if (filter.minUpMbps !== undefined && offer.upMbps < filter.minUpMbps) return false;
  if (offer.directPorts < SAFE_DEFAULTS.minDirectPorts) return false;
  const space = num(row.disk_space);
  if (space !== null && space < diskGb) return false;
  if (filter.region !== undefined) {
    const country = countryOf(offer.location);
    if (country !== null && !regionCodes(filter.region).includes(country)) return false;
  }
  return true;
}

/** The all-in $/h the filter's market pays for an offer: its lowest bid plus storage on
 *  the interruptible market, else on-demand. */
export function paidPrice(offer: Offer, filter: Pick<OfferFilter, 'interruptible'>): number {
  return filter.interruptible ? (offer.interruptiblePricePerHour ?? Infinity) : offer.pricePerHour;
}

/** "Washington, US" → "US": Vast.ai locations end in the two-letter country code. */
export function countryOf(location: string | null): string | null {
  const m = location ? /(?:^|,\s*)([A-Z]{2})\s*$/.exec(location) : null;
  return m?.[1] ?? null;
}

function normName(name: string): string {
  return name
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

function idOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  return null;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
