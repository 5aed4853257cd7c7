// A Slurm cluster Tender submits to (docs/slurm.md): its login node, reached over SSH like
// one of your own hosts (its host key pinned at first contact), and the defaults its jobs
// are submitted with. Stored in `<home>/clusters.toml`.
import { z } from 'zod';

const SlurmName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, . _ - only');

export const ClusterInput = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'letters, digits, . _ - only'),
    /** The login node. */
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(22),
    user: z.string().min(1),
    identityFile: z.string().min(1).optional(),
    /** `sbatch --partition`, `--account`, `--qos` (absent: the cluster's defaults). */
    partition: SlurmName.optional(),
    account: SlurmName.optional(),
    qos: SlurmName.optional(),
    /** A notional $/GPU-hour for the cost report; absent: nothing is counted (it bills no
     *  one by the hour). */
    gpuHourUsd: z.number().nonnegative().optional(),
  })
  .strict();
export type ClusterInput = z.input<typeof ClusterInput>;

export const ClusterView = z.object({
  name: z.string(),
  host: z.string(),
  port: z.number(),
  user: z.string(),
  identityFile: z.string().nullable(),
  partition: z.string().nullable(),
  account: z.string().nullable(),
  qos: z.string().nullable(),
  gpuHourUsd: z.number().nullable(),
  /** Its login node's host key as pinned (`SHA256:…`); null before the first contact. */
  hostKey: z.string().nullable(),
});
export type ClusterView = z.infer<typeof ClusterView>;
