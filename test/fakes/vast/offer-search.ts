// `POST /api/v0/bundles/`: the body vast.py's search__offers sends — filters
// `{"field": {"op": value}}` next to `order` ([[field, "asc"|"desc"], …]), `type`, `limit`,
// `allocated_storage` and `disable_bundling` — applied for real to the seeded inventory.
// A filter on a field no offer has is a 400 here (a typo in a provider's filter must not
// pass silently); whether real Vast rejects or ignores it is not documented.
import { FilterError, isFilterObject, matchesOps } from './filter-ops';
import { buildSpec, type MachineSpec, offerView } from './offers';

export interface InventoryEntry {
  spec: MachineSpec;
  /** Rented by this account: listed with `rented: true`, not rentable again. */
  isRentedByUs: boolean;
  /** Rented by someone else: gone from the market. */
  isTaken: boolean;
}

const NON_FILTER_KEYS = new Set([
  'order',
  'type',
  'limit',
  'allocated_storage',
  'disable_bundling',
]);
const TYPES = new Set(['on-demand', 'bid', 'reserved']);
/** search_offers.yaml: "Storage allocation size in GB … Default is 8GB." */
const DEFAULT_ALLOCATED_STORAGE_GB = 8;

/** Filter-only fields: accepted by the server but computed from other columns. */
const VIRTUAL_FIELDS: Record<string, (o: Record<string, unknown>) => unknown> = {
  verified: (o) => o.verification === 'verified',
  datacenter: (o) => o.hosting_type === 1,
};

export function searchOffers(
  body: unknown,
  inventory: InventoryEntry[],
  nowMs: number,
): Record<string, unknown>[] {
  if (!isFilterObject(body)) throw new FilterError('Invalid json body: expected an object');
  const storage = numberOr(
    body.allocated_storage,
    DEFAULT_ALLOCATED_STORAGE_GB,
    'allocated_storage',
  );
  if (body.type !== undefined && !TYPES.has(String(body.type)))
    throw new FilterError(`Invalid type '${String(body.type)}': on-demand, bid or reserved`);
  const filters = Object.entries(body).filter(([k]) => !NON_FILTER_KEYS.has(k));
  const views = inventory
    .filter((e) => !e.isTaken)
    .map((e) => offerView(e.spec, storage, e.isRentedByUs, nowMs));
  const known = new Set(Object.keys(offerView(buildSpec({}, 0), storage, false, nowMs)));
  for (const [field, ops] of filters) {
    if (!known.has(field) && !(field in VIRTUAL_FIELDS))
      throw new FilterError(`Unknown search field '${field}'`);
    if (!isFilterObject(ops))
      throw new FilterError(`Filter for '${field}' must be an object like {"eq": value}`);
  }
  const matching = views.filter((view) =>
    filters.every(([field, raw]) => {
      const ops = raw as Record<string, unknown>;
      return matchesOps(field, fieldValue(view, field, ops), ops);
    }),
  );
  matching.sort(comparator(parseOrder(body.order, known)));
  const limit = body.limit === undefined ? matching.length : numberOr(body.limit, 0, 'limit');
  return matching.slice(0, Math.max(0, Math.floor(limit)));
}

function fieldValue(view: Record<string, unknown>, field: string, ops: Record<string, unknown>) {
  const virtual = VIRTUAL_FIELDS[field];
  if (virtual) return virtual(view);
  const expected = Object.values(ops).flatMap((v) => (Array.isArray(v) ? v : [v]));
  // vast.py turns "driver_version >= 535.86.05" into 535086005.
  if (field === 'driver_version' && expected.every((v) => typeof v === 'number'))
    return view.driver_vers;
  // "geolocation in [SE, NO]": the country code at the end of "Sweden, SE".
  if (field === 'geolocation' && expected.every((v) => typeof v === 'string' && v.length === 2))
    return String(view.geolocation).split(',').pop()!.trim();
  return view[field];
}

type Order = [field: string, dir: 'asc' | 'desc'][];

function parseOrder(order: unknown, known: Set<string>): Order {
  if (order === undefined || (Array.isArray(order) && order.length === 0))
    return [['score', 'desc']];
  if (!Array.isArray(order)) throw new FilterError('order must be a list of [field, direction]');
  return order.map((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string')
      throw new FilterError(`Invalid order entry ${JSON.stringify(entry)}`);
    if (!known.has(entry[0])) throw new FilterError(`Unknown order field '${entry[0]}'`);
    return [entry[0], entry[1] === 'desc' ? 'desc' : 'asc'];
  });
}

function comparator(order: Order) {
  return (a: Record<string, unknown>, b: Record<string, unknown>): number => {
    for (const [field, dir] of order) {
      const x = a[field];
      const y = b[field];
      if (x === y) continue;
      const c = (x as number | string) < (y as number | string) ? -1 : 1;
      return dir === 'asc' ? c : -c;
    }
    return (a.id as number) - (b.id as number);
  };
}

function numberOr(v: unknown, fallback: number, name: string): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw new FilterError(`${name} must be a number`);
  return n;
}
