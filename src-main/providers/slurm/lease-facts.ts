import type { LeaseFacts } from '../provider';
import type { ClusterEntry } from './clusters-file';

export const SLURM_KIND = 'slurm';

/** A Slurm job as a lease: `slurm:<cluster>/<job id>`, destroyed by cluster and job id. */
export function leaseFacts(
  c: ClusterEntry,
  label: string,
  jobId: string,
  gpus: number,
): LeaseFacts {
  const leaseId = `slurm:${c.name}/${jobId}`;
  return {
    provider: SLURM_KIND,
    leaseId,
    contractId: jobId,
    label,
    destroyHandle: { provider: SLURM_KIND, leaseId, cluster: c.name, jobId },
    // A notional price, when the cluster declares one (the cost report only).
    pricePerHour: c.gpuHourUsd !== null ? c.gpuHourUsd * Math.max(1, gpus) : null,
    metadata: { cluster: c.name, jobId },
  };
}
