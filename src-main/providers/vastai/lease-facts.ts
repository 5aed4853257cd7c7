import type { Offer } from '../../contract/offer';
import type { DestroyHandle, LeaseFacts } from '../provider';
import { isRecord } from './errors';
import { conditionOf } from './interruption';
import { allInPrice, num } from './offers';

export const PROVIDER = 'vastai';

/** The env marker every lease carries besides its Vast.ai label, so a lease is still found if
 *  someone relabels it in the console. */
export const LABEL_ENV = 'TENDER_LABEL';

/** Labels Tender writes: `tender-<install>-<run>-<node>`. Anything else is refused before it
 *  reaches a request, and a label prefix must be at least one such character. */
export const SAFE_LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,255}$/;

/** An instance's environment. Vast.ai answers `extra_env` as `[["KEY","value"], …]`
 *  (show_instances.yaml; vast.py turns it into a dict); strings `KEY=value` and a plain
 *  object are accepted too. */
export function envOf(inst: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  const raw = inst.extra_env;
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (Array.isArray(item) && typeof item[0] === 'string')
        env[item[0]] = typeof item[1] === 'string' ? item[1] : String(item[1] ?? '');
      else if (typeof item === 'string' && item.includes('='))
        env[item.slice(0, item.indexOf('='))] = item.slice(item.indexOf('=') + 1);
    }
  } else if (isRecord(raw)) {
    for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') env[k] = v;
  }
  return env;
}

/** The Tender label of an instance under `prefix`: its Vast.ai label, else its env marker. */
export function tenderLabelOf(inst: Record<string, unknown>, prefix: string): string | null {
  const label = typeof inst.label === 'string' ? inst.label.trim() : '';
  if (label.startsWith(prefix) && SAFE_LABEL.test(label)) return label;
  const marker = envOf(inst)[LABEL_ENV]?.trim() ?? '';
  if (marker.startsWith(prefix) && SAFE_LABEL.test(marker)) return marker;
  return null;
}

export function handleFor(instanceId: string): DestroyHandle {
  return { provider: PROVIDER, leaseId: `${PROVIDER}:${instanceId}`, instanceId };
}

/** The instance id a handle or lease names. */
export function instanceIdOf(handle: DestroyHandle): string | null {
  const id = handle.instanceId ?? handle.leaseId.replace(/^vastai:/, '');
  return /^\d{1,20}$/.test(id) ? id : null;
}

/** Facts of a lease just created on `offer`. */
export function factsFromCreate(
  instanceId: string,
  label: string,
  offer: Offer,
  extra: Record<string, string>,
): LeaseFacts {
  return {
    provider: PROVIDER,
    leaseId: `${PROVIDER}:${instanceId}`,
    contractId: instanceId,
    label,
    offerId: offer.offerId,
    destroyHandle: handleFor(instanceId),
    pricePerHour: offer.pricePerHour,
    metadata: {
      machine_id: offer.machineId,
      gpu: `${offer.gpuCount}x ${offer.gpuName}`,
      offer: offer.offerId,
      gpu_price_per_hour: String(offer.gpuPricePerHour),
      storage_price_per_hour: String(offer.storagePricePerHour),
      ...(offer.location ? { location: offer.location } : {}),
      ...extra,
    },
  };
}

/** Facts of a listed instance. Its price is its own all-in $/h for the disk it has. */
export function factsFromInstance(inst: Record<string, unknown>, label: string): LeaseFacts | null {
  const id = typeof inst.id === 'number' || typeof inst.id === 'string' ? String(inst.id) : '';
  if (!/^\d{1,20}$/.test(id)) return null;
  const price = allInPrice(inst, num(inst.disk_space) ?? 0);
  const metadata: Record<string, string> = {};
  if (inst.machine_id !== undefined && inst.machine_id !== null)
    metadata.machine_id = String(inst.machine_id);
  if (typeof inst.gpu_name === 'string')
    metadata.gpu = `${num(inst.num_gpus) ?? 1}x ${inst.gpu_name}`;
  if (typeof inst.actual_status === 'string') metadata.status = inst.actual_status;
  if (typeof inst.image_uuid === 'string') metadata.image = inst.image_uuid;
  const condition = conditionOf(inst);
  if (inst.is_bid === true) {
    metadata.interruptible = 'true';
    if (condition?.bid !== undefined) metadata.bid = String(condition.bid);
  }
  return {
    provider: PROVIDER,
    leaseId: `${PROVIDER}:${id}`,
    contractId: id,
    label,
    destroyHandle: handleFor(id),
    pricePerHour: price?.pricePerHour ?? null,
    metadata,
    ...(condition ? { condition } : {}),
  };
}
