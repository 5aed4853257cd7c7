import type { DestroyHandle, LeaseFacts } from '../provider';
import { ProviderError } from '../provider';
import type { LambdaInstance } from './api-client';
import { PROVIDER } from './kind';
import type { LambdaOffer } from './offers';

export { PROVIDER };

/** Lambda's `name` holds at most 64 characters (openapi.yaml `InstanceName`, maxLength 64).
 *  Tender's labels, `tender-<8 hex install>-<8 run>-node-<n>`, take ~35. */
export const MAX_NAME = 64;

/** Labels Tender writes; anything else is refused before it reaches a request. */
export const SAFE_LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Lambda instance ids: 32 hex characters (`0920582c7ff041399e34823a0be62549`); anything
 *  id-like is accepted, nothing that could change the path. */
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function checkLabel(label: string): string {
  if (!SAFE_LABEL.test(label))
    throw new ProviderError(`bad lease label "${label}"`, { fatal: true });
  if (label.length > MAX_NAME)
    throw new ProviderError(
      `lease label "${label}" is ${label.length} characters; a Lambda Cloud instance name holds at most ${MAX_NAME}`,
      { fatal: true, hint: 'use shorter job node names (the label ends with the node name)' },
    );
  return label;
}

export function handleFor(instanceId: string): DestroyHandle {
  return { provider: PROVIDER, leaseId: `${PROVIDER}:${instanceId}`, instanceId };
}

/** The instance id a handle names, or null when it names none. */
export function instanceIdOf(handle: DestroyHandle): string | null {
  const id = handle.instanceId ?? handle.leaseId.replace(/^lambda:/, '');
  return INSTANCE_ID.test(id) ? id : null;
}

/** Facts of a lease just launched from `offer`. */
export function factsFromLaunch(
  instanceId: string,
  label: string,
  offer: LambdaOffer,
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
      instance_type: offer.instanceType,
      region: offer.region,
      gpu: `${offer.gpuCount}x ${offer.gpuName}`,
      offer: offer.offerId,
      ...(offer.location ? { location: offer.location } : {}),
      ...extra,
    },
  };
}

/** Facts of a listed instance (its price from its own instance type). */
export function factsFromInstance(inst: LambdaInstance, label: string): LeaseFacts {
  const type = inst.instance_type;
  const metadata: Record<string, string> = { status: inst.status };
  if (type) {
    metadata.instance_type = type.name;
    metadata.gpu = `${type.specs.gpus}x ${type.gpu_description || type.description}`;
  }
  if (inst.region) metadata.region = inst.region.name;
  const state = inst.status === 'active' ? 'running' : inst.status === 'booting' ? 'loading' : null;
  return {
    provider: PROVIDER,
    leaseId: `${PROVIDER}:${inst.id}`,
    contractId: inst.id,
    label,
    ...(type && inst.region ? { offerId: `${type.name}@${inst.region.name}` } : {}),
    destroyHandle: handleFor(inst.id),
    pricePerHour: type ? type.price_cents_per_hour / 100 : null,
    metadata,
    // No stop state on Lambda: a listed instance is loading or running; `unhealthy` says
    // nothing the reconciler could act on, so it carries no condition.
    ...(state ? { condition: { state } } : {}),
  };
}
