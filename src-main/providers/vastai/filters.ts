import type { OfferFilter } from '../../contract/offer';
import { ProviderError } from '../provider';
import { vastGpuNames } from './gpu-catalog';

/** What an absent filter field means: a machine you would not regret renting. */
export const SAFE_DEFAULTS = {
  /** Vast.ai's own default (search__offers in vast.py): machines Vast.ai has checked. */
  verified: true,
  /** Vast.ai's reliability score, 0..1. Below 0.9 hosts drop often enough to hurt a run. */
  minReliability: 0.9,
  /** Mb/s. A workspace push and the outputs pull go over this link. */
  minDownMbps: 128,
  /** One open port on the host's router is what a direct SSH connection needs. */
  minDirectPorts: 1,
} as const;

/** Vast.ai refuses a smaller disk (create_instance.yaml, x-input-validation disk.min). */
export const MIN_DISK_GB = 8;
const MAX_SEARCH_LIMIT = 500; // OfferFilter's own cap

export function effectiveDiskGb(diskGb: number): number {
  return Math.max(Math.ceil(diskGb), MIN_DISK_GB);
}

/** The search body of POST /api/v0/bundles/, in Vast.ai's `{"field": {"op": value}}`
 *  language (search_offers.yaml). The answer is re-checked against the same filter in
 *  offers.ts: a server that ignores a field must not rent us the wrong machine.
 *  `extraLimit` widens the page to make room for offers dropped afterwards (failed hosts). */
export function buildOfferQuery(filter: OfferFilter, extraLimit = 0): Record<string, unknown> {
  const disk = effectiveDiskGb(filter.diskGb);
  const q: Record<string, unknown> = {
    rentable: { eq: true },
    rented: { eq: false },
    external: { eq: false }, // vast.py's default query for every search
    num_gpus: { eq: filter.gpuCount },
    reliability: { gte: filter.minReliability ?? SAFE_DEFAULTS.minReliability },
    inet_down: { gte: filter.minDownMbps ?? SAFE_DEFAULTS.minDownMbps },
    direct_port_count: { gte: SAFE_DEFAULTS.minDirectPorts },
    disk_space: { gte: disk },
  };
  if (filter.verified ?? SAFE_DEFAULTS.verified) q.verified = { eq: true };
  // Vast compares names exactly: a family (`A100`) is sent as its variants.
  const gpus = vastGpuNames(filter.gpu);
  if (gpus.length === 1) q.gpu_name = { eq: gpus[0] };
  if (gpus.length > 1) q.gpu_name = { in: gpus };
  // gpu_ram is MB; vast.py multiplies GB by 1000 (offers_mult), so "24" admits a 24 GiB card.
  if (filter.minVramGb !== undefined) q.gpu_ram = { gte: Math.round(filter.minVramGb * 1000) };
  // With allocated_storage set, dph_total is GPU plus storage for that disk: the all-in price.
  // On the interruptible market the cap is on the bid: min_bid (without storage) may not
  // exceed it either; the all-in bid price is re-checked client-side.
  if (filter.maxPrice !== undefined) {
    if (filter.interruptible) q.min_bid = { lte: filter.maxPrice };
    else q.dph_total = { lte: filter.maxPrice };
  }
  if (filter.minUpMbps !== undefined) q.inet_up = { gte: filter.minUpMbps };
  if (filter.region !== undefined) q.geolocation = { in: regionCodes(filter.region) };
  // vast.py's --type interruptible is "bid": offers priced for bidding, cheapest minimum first.
  q.order = filter.interruptible ? [['min_bid', 'asc']] : [['dph_total', 'asc']];
  q.type = filter.interruptible ? 'bid' : 'on-demand';
  q.allocated_storage = disk;
  q.limit = Math.min(MAX_SEARCH_LIMIT, filter.limit + extraLimit);
  return q;
}

/** Named regions as vast.py's REGIONS (its Europe list lacks its closing bracket; ours not). */
const REGIONS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries({
    'north america': 'US CA',
    'south america': 'BR AR CL',
    europe: 'SE UA GB PL PT SI DE IT CH LT GR FI IS AT FR RO MD HU NO MK BG ES HR NL CZ EE',
    asia: 'CN JP KR ID IN HK MY IL TH QA TR RU VN TW OM SG AE KZ',
    oceania: 'AU NZ',
    africa: 'EG ZA',
  }).map(([name, codes]) => [name, codes.split(' ')]),
);

/** A region name (`Europe`, `North_America`) or country codes (`US`, `US,CA`, `[SE, NO]`). */
export function regionCodes(region: string): string[] {
  const name = region.replace(/_/g, ' ').trim().toLowerCase();
  const named = REGIONS[name];
  if (named) return [...named];
  const codes = region
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== '');
  if (codes.length === 0 || !codes.every((c) => /^[A-Z]{2}$/.test(c)))
    throw new ProviderError(`unknown region "${region}"`, {
      fatal: true,
      hint: `use two-letter country codes (US,CA) or one of: ${Object.keys(REGIONS).join(', ')}`,
    });
  return codes;
}
