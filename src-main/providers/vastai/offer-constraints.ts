// A job's capability constraints, applied to Vast.ai offers before renting: the keys an
// offer tells (GPU count and memory, CUDA, the OS) are checked on it; the rest wait for
// the node's own probe at join. The first constraint that leaves no offer is named.
import type { Offer } from '../../contract/offer';
import { type CapabilityMap, type Constraint, satisfies } from '../../contract/constraint';

const MIB = 1024 ** 2;

/** What an offer says of the capabilities a node on it will probe. */
export function offerCapabilities(o: Offer): CapabilityMap {
  // Vast.ai counts gpu_ram in MB of 1000 (vramGb); nvidia-smi reports MiB: the same figure.
  const perGpu = Math.round(o.vramGb * 1000) * MIB;
  const caps: CapabilityMap = {
    os: 'linux',
    'gpu.count': o.gpuCount,
    'gpu.vram': perGpu * o.gpuCount,
    'gpu.vram.max': perGpu,
  };
  if (o.cudaMaxGood !== null) caps['gpu.cuda'] = String(o.cudaMaxGood);
  return caps;
}

/** The offers every constraint an offer can answer holds on, and the first constraint
 *  that emptied the list (null: none did). */
export function filterOffers(
  offers: Offer[],
  constraints: readonly Constraint[],
): { offers: Offer[]; emptiedBy: Constraint | null } {
  let left = offers;
  for (const c of constraints) {
    const before = left;
    left = left.filter((o) => {
      const caps = offerCapabilities(o);
      return caps[c.key] === undefined || satisfies(c, caps);
    });
    if (left.length === 0 && before.length > 0) return { offers: [], emptiedBy: c };
  }
  return { offers: left, emptiedBy: null };
}
