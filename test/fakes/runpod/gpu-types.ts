// The fake's GPU catalogue: what `gpuTypes { … lowestPrice(input) { … } }` answers, per cloud.

/** One cloud's offer of a GPU type. Prices are per GPU per hour. */
export interface CloudSeed {
  price: number;
  /** The lowest bid per GPU (minimumBidPrice); null: no interruptible pods. */
  spotPrice?: number | null;
  /** stockStatus; null: none available (gpuhunt skips it). Default High. */
  stock?: 'High' | 'Medium' | 'Low' | null;
}

export interface GpuTypeSeed {
  /** The gpuTypeId, e.g. `NVIDIA GeForce RTX 4090`. */
  id: string;
  /** e.g. `RTX 4090`; default: the id without its maker. */
  displayName?: string;
  memoryInGb: number;
  maxGpuCount?: number;
  secure?: CloudSeed | null;
  community?: CloudSeed | null;
}

export interface GpuType {
  id: string;
  displayName: string;
  memoryInGb: number;
  maxGpuCount: number;
  secure: CloudSeed | null;
  community: CloudSeed | null;
}

export function gpuTypeOf(seed: GpuTypeSeed): GpuType {
  return {
    id: seed.id,
    displayName: seed.displayName ?? seed.id.replace(/^NVIDIA (GeForce )?/, ''),
    memoryInGb: seed.memoryInGb,
    maxGpuCount: seed.maxGpuCount ?? 8,
    secure: seed.secure === undefined ? { price: 0.69, spotPrice: 0.35 } : seed.secure,
    community: seed.community === undefined ? null : seed.community,
  };
}

export const DEFAULT_GPU_TYPES: GpuTypeSeed[] = [
  {
    id: 'NVIDIA GeForce RTX 4090',
    displayName: 'RTX 4090',
    memoryInGb: 24,
    secure: { price: 0.69, spotPrice: 0.35 },
    community: { price: 0.34, spotPrice: 0.2 },
  },
  {
    id: 'NVIDIA A100 80GB PCIe',
    displayName: 'A100 PCIe',
    memoryInGb: 80,
    secure: { price: 1.64, spotPrice: 0.82 },
    community: { price: 1.19, spotPrice: null },
  },
];

/** The cloud a lowestPrice / create asks for: `secureCloud: true` secure, `false` community,
 *  absent: the cheaper in stock. */
export function cloudOf(t: GpuType, secure: boolean | undefined): CloudSeed | null {
  if (secure === true) return t.secure;
  if (secure === false) return t.community;
  const both = [t.secure, t.community].filter(
    // absent stock is High; null is none
    (c): c is CloudSeed => c !== null && c.stock !== null,
  );
  return both.sort((a, b) => a.price - b.price)[0] ?? null;
}

/** The GraphQL `GpuType` object, `lowestPrice` a function of its input. */
export function gpuTypeView(t: GpuType): Record<string, unknown> {
  return {
    id: t.id,
    displayName: t.displayName,
    memoryInGb: t.memoryInGb,
    manufacturer: 'Nvidia',
    maxGpuCount: t.maxGpuCount,
    secureCloud: t.secure !== null,
    communityCloud: t.community !== null,
    securePrice: t.secure?.price ?? null,
    communityPrice: t.community?.price ?? null,
    secureSpotPrice: t.secure?.spotPrice ?? null,
    communitySpotPrice: t.community?.spotPrice ?? null,
    lowestPrice: (args: { input?: { gpuCount?: number; secureCloud?: boolean } }) => {
      const count = args.input?.gpuCount ?? 1;
      const c = cloudOf(t, args.input?.secureCloud);
      if (!c) return null;
      const stock = count > t.maxGpuCount ? null : c.stock === undefined ? 'High' : c.stock;
      return {
        gpuName: t.displayName,
        gpuTypeId: t.id,
        minimumBidPrice: c.spotPrice ?? null,
        uninterruptablePrice: c.price,
        stockStatus: stock,
        minVcpu: 8 * count,
        minMemory: 30 * count,
        countryCode: 'US',
      };
    },
  };
}
