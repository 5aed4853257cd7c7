import { z } from 'zod';
import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { OfferFilter } from '../../contract/offer';
import { ImageLogin } from '../../contract/image-login';
import { countedShapes, type NodeShape } from '../pool-shapes';
import { ProviderError } from '../provider';

/** `<gpuTypeId>|<SECURE|COMMUNITY>`: a GPU type in one cloud (RunPod picks the machine). */
export const OFFER_ID = /^[^|]{1,128}\|(SECURE|COMMUNITY)$/;

/** The node shape a runpod lease is created from: the pool's marketplace fields (PoolSpec)
 *  plus what the orchestrator adds. Other keys are ignored (shapeNodes refuses the pool
 *  fields RunPod cannot honour before a shape is made). */
export const RunpodShape = z.object({
  gpu: z.string().min(1).optional(),
  gpu_count: z.number().int().min(1).max(16).optional(),
  min_vram_gb: z.number().positive().optional(),
  max_price: z.number().positive().optional(),
  image: z.string().min(1).max(1024).optional(),
  /** The image's registry login, its password by variable (a container registry auth
   *  made for the lease: registry-auth.ts). */
  image_login: ImageLogin.optional(),
  /** containerDiskInGb. */
  disk_gb: z.number().int().min(1).max(8192).optional(),
  /** True: secure cloud only (RunPod's own data centres); otherwise community too. */
  verified: z.boolean().optional(),
  /** A secure-cloud data centre id (`EU-RO-1`: has a dash) or a community country code
   *  (`US`), as dstack tells them apart. */
  region: z
    .string()
    .regex(/^[A-Za-z0-9-]{2,32}$/)
    .optional(),
  interruptible: z.boolean().optional(),
  /** The bid, $/h for the whole pod; default: the lowest bid + 10%. */
  bid: z.number().positive().optional(),
  offerId: z.string().regex(OFFER_ID).optional(),
});
export type RunpodShape = z.infer<typeof RunpodShape>;

/** Pool fields RunPod has no way to honour, and why (a search that ignored them would rent
 *  what the person said they did not want). */
const UNSUPPORTED: Partial<Record<keyof PoolSpec, string>> = {
  min_reliability: 'RunPod publishes no host reliability score',
  min_down_mbps:
    'RunPod picks the machine itself; its lowestPrice answer has no bandwidth to filter by',
  min_up_mbps:
    'RunPod picks the machine itself; its lowestPrice answer has no bandwidth to filter by',
};

/** One node per count or per offer picked, each with the pool's fields. */
export function shapeNodes(pool: PoolSpec): NodeShape[] {
  for (const [field, why] of Object.entries(UNSUPPORTED))
    if (pool[field as keyof PoolSpec] !== undefined)
      throw new TenderError(
        'bad_input',
        `${field} is not supported by the runpod provider: ${why}`,
        `leave ${field} out of the pool, or use provider = "vastai"`,
      );
  const shapes = countedShapes('runpod', pool);
  for (const s of shapes) {
    const parsed = RunpodShape.safeParse(s);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TenderError(
        'bad_input',
        `runpod pool: ${issue?.path.join('.') || 'pool'}: ${issue?.message ?? 'invalid'}`,
        issue?.path[0] === 'offerId'
          ? 'offers for runpod look like "NVIDIA GeForce RTX 4090|SECURE" (`tender offers --provider runpod`)'
          : undefined,
      );
    }
  }
  return shapes;
}

export function parseShape(shape: Record<string, unknown>): RunpodShape {
  const parsed = RunpodShape.safeParse(shape);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderError(
    `bad runpod node shape: ${issue?.path.join('.') || 'shape'}: ${issue?.message ?? 'invalid'}`,
    { fatal: true },
  );
}

/** The search a create runs. */
export function filterOfShape(shape: RunpodShape): OfferFilter {
  return OfferFilter.parse({
    gpu: shape.gpu,
    gpuCount: shape.gpu_count,
    minVramGb: shape.min_vram_gb,
    maxPrice: shape.max_price,
    diskGb: shape.disk_gb,
    verified: shape.verified,
    region: shape.region,
    interruptible: shape.interruptible === true ? true : undefined,
    limit: 16,
  });
}

/** Where a region goes in RunPod's inputs: `dataCenterId` (uppercase: lowercase is accepted
 *  but breaks things, dstack) or `countryCode`. */
export function regionInput(region: string | undefined): {
  dataCenterId?: string;
  countryCode?: string;
} {
  if (!region) return {};
  return region.includes('-')
    ? { dataCenterId: region.toUpperCase() }
    : { countryCode: region.toUpperCase() };
}
