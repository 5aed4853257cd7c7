// A node of a run as the UI and the CLI see it: its stage and how it got there, its lease,
// its job, its link, and its GPUs as its agent last sampled them.
import { z } from 'zod';
import { GpuIdleFired } from './gpu-idle';
import { BootstrapStage, JobPhase, JobStatus, NodeStage } from './stages';

/** A node's key, `r-…/node-0` (`${runId}/${logicalId}`): what `nodeId` holds. */
export const NodeKey = z.string().min(1);

/** A node's name in its run (`node-0`: `NodeView.logicalId`, what `nodeName` holds) from
 *  its key; a name passes through. */
export function nodeNameOf(nodeId: string): string {
  return nodeId.slice(nodeId.indexOf('/') + 1);
}

/** A node's GPUs as its agent last sampled them (every 5 s; docs/agent-protocol.md, "GPU
 *  samples"). Times are epoch ms on the node's clock. */
export const NodeGpu = z.object({
  /** When the latest sample was taken. */
  at: z.number(),
  /** Per GPU, in nvidia-smi's index order: utilisation (percent) and memory (MiB); null
   *  where nvidia-smi could not read it (a MIG-enabled GPU has no utilisation). */
  gpus: z.array(
    z.object({
      index: z.number().int(),
      util: z.number().nullable(),
      memUsedMiB: z.number().nullable(),
      memTotalMiB: z.number().nullable(),
    }),
  ),
  /** The sparkline: the GPUs' mean utilisation per sample, oldest first (the last 60). */
  history: z.array(z.object({ at: z.number(), util: z.number().nullable() })),
  /** The latest sample is minutes old (the link is down, or nobody streams the log). */
  stale: z.boolean(),
  /** "stalled?": the job runs, its log has had no line for a while (10 min) and every GPU
   *  sat below the idle threshold all that time. Shown, never acted on. */
  stalled: z.boolean(),
  /** The node's last log line that is not a sample; null: none seen by this process. */
  lastLineAt: z.number().nullable(),
});
export type NodeGpu = z.infer<typeof NodeGpu>;

/** A lease that is not usable yet, as its provider says (docs/providers.md, "Image pulls"):
 *  its own words, the pull's progress where they say it, and when Tender gives up on it. */
export const NodePull = z.object({
  /** The provider's last words ("loading: Downloading 6.8GB/15GB"). */
  line: z.string(),
  /** They are about the image being pulled (Vast.ai `loading`, a RunPod pod without a
   *  runtime): the stall rule applies. */
  isImagePull: z.boolean(),
  doneBytes: z.number().nullable(),
  totalBytes: z.number().nullable(),
  /** 0–100, said outright or done/total. */
  percent: z.number().nullable(),
  /** When the wait for the lease began. */
  since: z.number(),
  /** When the provider first said the image was being pulled. */
  pullingSince: z.number().nullable(),
  /** When the pull last moved; null: not since it began. */
  lastProgressAt: z.number().nullable(),
  /** When Tender gives up on the lease unless the pull moves again. */
  givesUpAt: z.number(),
  /** The pool's `pull_stall`. */
  stallMs: z.number(),
});
export type NodePull = z.infer<typeof NodePull>;

export const NodeView = z.object({
  id: NodeKey,
  runId: z.string(),
  logicalId: z.string(),
  provider: z.string(),
  stage: NodeStage,
  ready: z.boolean(),
  bootstrapStage: BootstrapStage.nullable(),
  leaseId: z.string().nullable(),
  label: z.string().nullable(),
  agentId: z.string().nullable(),
  capabilities: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
  failedReason: z.string().nullable(),
  /** Why the node was destroyed (job ended, Tear down all, its own dead-man switch…). */
  destroyReason: z.string().nullable(),
  jobStatus: JobStatus.nullable(),
  jobPhase: JobPhase.nullable(),
  exitCode: z.number().nullable(),
  /** Bytes in the machine's TENDER_CACHE after its latest run (docs/host-setup.md); null or
   *  absent: not measured yet. */
  cacheBytes: z.number().nullable().optional(),
  linkState: z.enum(['none', 'connected', 'lost']),
  updatedAt: z.number(),
  stageSince: z.number(),
  /** Every stage the node went through and when it entered it, oldest first. */
  stages: z.array(z.object({ stage: NodeStage, at: z.number() })),
  /** When the current stage gives up (waiting for an endpoint, bootstrapping, confirming a
   *  destroy); null for stages without one. */
  deadlineAt: z.number().nullable(),
  /** This node took over a warm node of an earlier run (no create, no bootstrap). */
  claimedFrom: z.object({ runId: z.string(), nodeId: z.string() }).nullable().optional(),
  /** Stage `released`: the later run's node that holds this node's lease now. */
  releasedTo: z.string().nullable().optional(),
  /** Its GPUs' latest sample and sparkline, while its agent is up; null or absent: no
   *  sample (no GPU, not joined yet, gone, or not streamed to this process). */
  gpu: NodeGpu.nullable().optional(),
  /** The run's GPU idle rule fired on this node: when, why and what its agent did (the
   *  journal's latest `gpu_idle.fired`); null or absent: it has not. */
  gpuIdleFired: GpuIdleFired.nullable().optional(),
  /** While its lease provisions: what the provider says of it (this process's own nodes);
   *  null or absent otherwise. */
  pull: NodePull.nullable().optional(),
});
export type NodeView = z.infer<typeof NodeView>;
