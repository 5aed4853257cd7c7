import type { DestroyHandle, LeaseFacts } from '../provider';
import { isRecord } from './errors';
import { conditionOf, isInterruptiblePod } from './status';

export const PROVIDER = 'runpod';

/** The env marker every pod carries besides its name (`name` is not unique and can be edited
 *  in the console; the env cannot without a restart). */
export const LABEL_ENV = 'TENDER_LABEL';

/** Labels Tender writes: `tender-<install>-<run>-<node>`. Anything else is refused before it
 *  reaches a request. (dstack: pod names ≤ 60 characters "work"; Tender's are shorter.) */
export const SAFE_LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,255}$/;

/** RunPod pod ids: lowercase letters and digits, e.g. `xedezhzb9la3ye`. */
const POD_ID = /^[a-z0-9]{1,64}$/;

/** A pod's environment. GraphQL answers `env` as `["K=V", …]`; `{key, value}` objects (the
 *  create input's form) are read too. */
export function envOf(pod: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  const raw: unknown[] = Array.isArray(pod.env) ? pod.env : [];
  for (const item of raw) {
    if (typeof item === 'string' && item.includes('='))
      env[item.slice(0, item.indexOf('='))] = item.slice(item.indexOf('=') + 1);
    else if (isRecord(item) && typeof item.key === 'string')
      env[item.key] = typeof item.value === 'string' ? item.value : '';
  }
  return env;
}

/** The Tender label of a pod under `prefix`: its name, else its env marker. */
export function tenderLabelOf(pod: Record<string, unknown>, prefix: string): string | null {
  const name = typeof pod.name === 'string' ? pod.name.trim() : '';
  if (name.startsWith(prefix) && SAFE_LABEL.test(name)) return name;
  const marker = envOf(pod)[LABEL_ENV]?.trim() ?? '';
  if (marker.startsWith(prefix) && SAFE_LABEL.test(marker)) return marker;
  return null;
}

/** Whether the pod carries exactly `label` (name or env marker). */
export function hasLabel(pod: Record<string, unknown>, label: string): boolean {
  const name = typeof pod.name === 'string' ? pod.name.trim() : '';
  return name === label || envOf(pod)[LABEL_ENV]?.trim() === label;
}

export function handleFor(podId: string): DestroyHandle {
  return { provider: PROVIDER, leaseId: `${PROVIDER}:${podId}`, podId };
}

/** The pod id a handle names. */
export function podIdOf(handle: DestroyHandle): string | null {
  const id = handle.podId ?? handle.leaseId.replace(/^runpod:/, '');
  return POD_ID.test(id) ? id : null;
}

/** Facts of a pod, just created or listed. Its price is its own `costPerHr` when RunPod gave
 *  one, else `quoted` (what the offer said). */
export function factsOfPod(
  pod: Record<string, unknown>,
  label: string,
  extra: { offerId?: string; quoted?: number | null; metadata?: Record<string, string> } = {},
  withCondition = false,
): LeaseFacts | null {
  const id = typeof pod.id === 'string' ? pod.id : '';
  if (!POD_ID.test(id)) return null;
  const metadata: Record<string, string> = {};
  const machine = isRecord(pod.machine) ? pod.machine : null;
  if (typeof pod.machineId === 'string' && pod.machineId) metadata.machine_id = pod.machineId;
  if (typeof pod.gpuCount === 'number') metadata.gpu_count = String(pod.gpuCount);
  if (machine && typeof machine.gpuDisplayName === 'string')
    metadata.gpu = `${typeof pod.gpuCount === 'number' ? pod.gpuCount : 1}x ${machine.gpuDisplayName}`;
  if (typeof pod.desiredStatus === 'string') metadata.status = pod.desiredStatus;
  if (typeof pod.imageName === 'string') metadata.image = pod.imageName;
  if (isInterruptiblePod(pod)) metadata.interruptible = 'true';
  Object.assign(metadata, extra.metadata);
  const cost = typeof pod.costPerHr === 'number' && pod.costPerHr > 0 ? pod.costPerHr : null;
  const condition = withCondition ? conditionOf(pod) : undefined;
  return {
    provider: PROVIDER,
    leaseId: `${PROVIDER}:${id}`,
    contractId: id,
    label,
    ...(extra.offerId ? { offerId: extra.offerId } : {}),
    destroyHandle: handleFor(id),
    pricePerHour: cost ?? extra.quoted ?? null,
    metadata,
    ...(condition ? { condition } : {}),
  };
}
