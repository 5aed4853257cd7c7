import { z } from 'zod';
import { OfferFilter } from '../../contract/offer';
import { ImageLogin } from '../../contract/image-login';
import { ProviderError } from '../provider';

/** The node shape a vastai lease is created from: the pool's marketplace fields (PoolSpec)
 *  plus what the orchestrator adds. Other pool keys are ignored. */
export const VastShape = z.object({
  gpu: z.string().min(1).optional(),
  gpu_count: z.number().int().min(1).max(16).optional(),
  min_vram_gb: z.number().positive().optional(),
  max_price: z.number().positive().optional(),
  image: z.string().min(1).max(1024).optional(), // create_instance.yaml: image max_length
  /** The image's registry login, its password by variable (sent as `image_login`). */
  image_login: ImageLogin.optional(),
  disk_gb: z.number().int().min(1).max(8192).optional(),
  min_reliability: z.number().min(0).max(1).optional(),
  min_down_mbps: z.number().positive().optional(),
  min_up_mbps: z.number().positive().optional(),
  verified: z.boolean().optional(),
  region: z.string().min(1).optional(),
  /** A bid on the interruptible market instead of an on-demand rental. */
  interruptible: z.boolean().optional(),
  /** The bid, $/h for the machine without storage; default: the offer's minimum + 10%. */
  bid: z.number().positive().optional(),
  /** An offer picked by hand in the offer browser: tried first; if it is gone, the cheapest
   *  matching offer is taken instead. */
  offerId: z.string().regex(/^\d+$/).optional(),
  /** Machines not to rent this time (e.g. the host a replaced node failed on). */
  excludeMachines: z.array(z.string().regex(/^\d+$/)).optional(),
});
export type VastShape = z.infer<typeof VastShape>;

export function parseShape(shape: Record<string, unknown>): VastShape {
  const parsed = VastShape.safeParse(shape);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderError(
    `bad vastai node shape: ${issue?.path.join('.') || 'shape'}: ${issue?.message ?? 'invalid'}`,
    { fatal: true },
  );
}

/** The search a create runs: never one that includes hosts that failed before. */
export function filterOfShape(shape: VastShape): OfferFilter {
  return OfferFilter.parse({
    gpu: shape.gpu,
    gpuCount: shape.gpu_count,
    minVramGb: shape.min_vram_gb,
    maxPrice: shape.max_price,
    diskGb: shape.disk_gb,
    minReliability: shape.min_reliability,
    minDownMbps: shape.min_down_mbps,
    minUpMbps: shape.min_up_mbps,
    verified: shape.verified,
    region: shape.region,
    interruptible: shape.interruptible === true ? true : undefined,
    includeFailedHosts: false,
    limit: 16,
  });
}
