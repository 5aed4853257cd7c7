// A marketplace's rentable machines, and what to search it for.
import { z } from 'zod';

/** What to search a marketplace for. Absent fields use the provider's safe defaults. */
export const OfferFilter = z
  .object({
    gpu: z.string().min(1).optional(),
    gpuCount: z.number().int().min(1).max(16).default(1),
    minVramGb: z.number().positive().optional(),
    maxPrice: z.number().positive().optional(),
    diskGb: z.number().int().min(1).max(8192).default(32),
    minReliability: z.number().min(0).max(1).optional(),
    minDownMbps: z.number().positive().optional(),
    minUpMbps: z.number().positive().optional(),
    verified: z.boolean().optional(),
    region: z.string().min(1).optional(),
    /** Also show hosts that failed to boot for this user before (hidden by default). */
    includeFailedHosts: z.boolean().default(false),
    /** The interruptible market: only offers that take a bid, cheapest minimum bid first,
     *  `maxPrice` capping that price. */
    interruptible: z.boolean().optional(),
    limit: z.number().int().min(1).max(500).default(64),
  })
  .strict();
export type OfferFilter = z.infer<typeof OfferFilter>;
export type OfferFilterInput = z.input<typeof OfferFilter>;

/** One rentable machine of a marketplace, priced all-in for the requested disk. */
export const Offer = z.object({
  provider: z.string(),
  offerId: z.string(),
  machineId: z.string(),
  gpuName: z.string(),
  gpuCount: z.number(),
  /** Per GPU, in GB. */
  vramGb: z.number(),
  /** GPU $/h (the machine's dph). */
  gpuPricePerHour: z.number(),
  /** Storage $/h for the requested disk. */
  storagePricePerHour: z.number(),
  /** What the lease will bill per hour: GPU plus storage. */
  pricePerHour: z.number(),
  /** Interruptible: the lowest bid the machine takes now plus storage, all-in like
   *  `pricePerHour` (absent: the offer takes no bid). */
  interruptiblePricePerHour: z.number().optional(),
  /** The marketplace's host reliability score, 0..1; null where it publishes none (RunPod,
   *  Lambda Cloud): shown as "—", never as a perfect score. */
  reliability: z.number().nullable(),
  verified: z.boolean(),
  downMbps: z.number(),
  upMbps: z.number(),
  location: z.string().nullable(),
  cudaMaxGood: z.number().nullable(),
  /** Dollars per hour per TFLOP-ish performance score, when the provider gives one. */
  dlperf: z.number().nullable(),
  directPorts: z.number(),
  /** The host's CPU architecture in Docker's words (`amd64`, `arm64`), where the
   *  marketplace tells it (Vast.ai's `cpu_arch`): an image must be built for it. */
  cpuArch: z.string().nullable().optional(),
});
export type Offer = z.infer<typeof Offer>;
