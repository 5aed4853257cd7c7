import { z } from 'zod';
import { OfferFilter, type PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { countedShapes, type NodeShape } from '../pool-shapes';
import { ProviderError } from '../provider';

/** The node shape a Lambda lease is launched from: the pool's marketplace fields the
 *  provider honours, plus a picked offer. Not honoured, and said so here: `image` (a Lambda
 *  VM runs Lambda Stack; images are an API feature we do not use yet), `disk_gb` beyond
 *  filtering (each type's disk is fixed), `min_reliability`/`min_*_mbps`/`verified`
 *  (Lambda publishes no such figures; every machine is Lambda's own). */
export const LambdaShape = z.object({
  gpu: z.string().min(1).optional(),
  gpu_count: z.number().int().min(1).max(16).optional(),
  min_vram_gb: z.number().positive().optional(),
  max_price: z.number().positive().optional(),
  image: z.string().min(1).optional(),
  disk_gb: z.number().int().min(1).max(65536).optional(),
  min_reliability: z.number().min(0).max(1).optional(),
  min_down_mbps: z.number().positive().optional(),
  min_up_mbps: z.number().positive().optional(),
  verified: z.boolean().optional(),
  region: z.string().min(1).optional(),
  interruptible: z.literal(false).optional(),
  /** `<instance type>@<region>`, picked in the offer browser: launched first; when it has no
   *  capacity, the cheapest matching type and region is taken instead. */
  offerId: z
    .string()
    .regex(/^[a-z0-9_]+@[a-z0-9-]+$/i)
    .optional(),
});
export type LambdaShape = z.infer<typeof LambdaShape>;

const NO_INTERRUPTIBLE = 'Lambda Cloud sells no interruptible instances';

/** One node per count or offer picked (pool-shapes.ts). A pool asking for interruptible
 *  instances or a bid is bad input: Lambda sells neither. */
export function shapeNodes(pool: PoolSpec): NodeShape[] {
  if (pool.interruptible === true || pool.bid !== undefined)
    throw new TenderError(
      'bad_input',
      NO_INTERRUPTIBLE,
      'leave out interruptible and bid for provider "lambda" (its instances are on-demand), or use provider "vastai" to bid',
    );
  if (pool.image_login !== undefined)
    throw new TenderError(
      'bad_input',
      'image_login is for a container image, and a Lambda Cloud VM runs none',
      'leave image_login out for provider "lambda", or use provider "vastai" or "runpod" for a private image',
    );
  const shapes = countedShapes('lambda', pool);
  for (const s of shapes)
    if (s.offerId !== undefined && !LambdaShape.shape.offerId.safeParse(s.offerId).success)
      throw new TenderError(
        'bad_input',
        `"${String(s.offerId)}" is not a Lambda offer id`,
        'a Lambda offer id is <instance type>@<region>, e.g. gpu_1x_a10@us-east-1 (`tender offers --provider lambda`)',
      );
  return shapes;
}

export function parseShape(shape: Record<string, unknown>): LambdaShape {
  const parsed = LambdaShape.safeParse(shape);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join('.') || 'shape';
  throw new ProviderError(
    where === 'interruptible'
      ? NO_INTERRUPTIBLE
      : `bad lambda node shape: ${where}: ${issue?.message ?? 'invalid'}`,
    { fatal: true },
  );
}

/** The search a launch runs for this shape. */
export function filterOfShape(shape: LambdaShape): OfferFilter {
  return OfferFilter.parse({
    gpu: shape.gpu,
    gpuCount: shape.gpu_count,
    minVramGb: shape.min_vram_gb,
    maxPrice: shape.max_price,
    diskGb: shape.disk_gb,
    region: shape.region,
    limit: 500,
  });
}
