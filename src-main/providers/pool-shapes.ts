import type { PoolSpec } from '../contract';
import { TenderError } from '../base/tender-error';

/** A node's desired shape, as its provider reads it (`CreateLeaseRequest.shape`). */
export type NodeShape = Record<string, unknown>;

/** The pool fields a marketplace searches offers by. */
const MARKET_FIELDS = [
  'gpu',
  'gpu_count',
  'min_vram_gb',
  'max_price',
  'image',
  'image_login',
  'disk_gb',
  'min_reliability',
  'min_down_mbps',
  'min_up_mbps',
  'verified',
  'region',
  'interruptible',
  'bid',
] as const;

/** The pool's marketplace fields that were given (the node shape a marketplace searches). */
export function marketShape(pool: PoolSpec): NodeShape {
  const shape: NodeShape = {};
  for (const k of MARKET_FIELDS) if (pool[k] !== undefined) shape[k] = pool[k];
  return shape;
}

/** A pool asking a provider that is no marketplace for marketplace things is bad input. */
export function refuseMarketFields(kind: string, pool: PoolSpec): void {
  const given = Object.keys(marketShape(pool));
  if (given.length > 0) {
    throw new TenderError(
      'bad_input',
      `${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} for a marketplace provider, not ${kind}`,
      'use --provider vastai (or provider = "vastai" in [pool]), or leave them out',
    );
  }
  if (pool.offers.length > 0) {
    throw new TenderError('bad_input', `offers are picked from a marketplace, not ${kind}`);
  }
}

/** One node per `count`, or per offer picked by hand (a count beyond them rents the
 *  cheapest matches), each with the pool's marketplace fields. */
export function countedShapes(kind: string, pool: PoolSpec): NodeShape[] {
  if (pool.hosts.length > 0)
    throw new TenderError('bad_input', `hosts are for the ssh provider, not ${kind}`);
  const market = marketShape(pool);
  const count = Math.max(pool.count, pool.offers.length);
  return Array.from({ length: count }, (_, i) => ({
    ...market,
    ...(pool.offers[i] ? { offerId: pool.offers[i] } : {}),
  }));
}
