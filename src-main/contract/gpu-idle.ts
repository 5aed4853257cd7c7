// The GPU idle rule (`[policy] gpu_idle`): its shape in a run's policy, the firing its node's
// agent recorded, and their words for every printer (CLI, app). docs/money-safety.md.
import { z } from 'zod';
import { formatDuration } from './policy-duration';

/** `notify`: recorded and shown, the job goes on; `stop`: the job stopped as a cancel would
 *  (outputs collected, the run failed with the rule as its reason); `teardown`: the node
 *  destroys itself as its dead-man switch would. */
export const GpuIdleAction = z.enum(['notify', 'stop', 'teardown']);
export type GpuIdleAction = z.infer<typeof GpuIdleAction>;

/** Every GPU of the node below `belowPct` percent for `forMs` while the job's run phase
 *  runs: the node's agent does `then`. */
export const GpuIdleRule = z
  .object({
    belowPct: z.number().gt(0).max(100),
    forMs: z.number().int().positive(),
    then: GpuIdleAction,
  })
  .strict();
export type GpuIdleRule = z.infer<typeof GpuIdleRule>;

/** What the agent did when the rule fired (the journal's `gpu_idle.fired`). `stopped_job`
 *  also where a teardown was asked but the node's switch was not armed. */
export const GpuIdleFired = z.object({
  at: z.number(),
  rule: GpuIdleRule,
  idleForMs: z.number(),
  did: z.enum(['notified', 'stopped_job', 'tearing_down']),
  reason: z.string(),
});
export type GpuIdleFired = z.infer<typeof GpuIdleFired>;

/** "GPU idle rule: stop after 30m under 10%". */
export function gpuIdleRuleText(rule: GpuIdleRule): string {
  return `GPU idle rule: ${rule.then} after ${formatDuration(rule.forMs)} under ${rule.belowPct}%`;
}

const DID_WORDS: Record<GpuIdleFired['did'], string> = {
  notified: 'notified (the job went on)',
  stopped_job: 'stopped the job',
  tearing_down: 'tore the node down',
};

/** "fired: every GPU under 10% for 30m while the job ran — stopped the job". */
export function gpuIdleFiredText(f: GpuIdleFired): string {
  return `fired: ${f.reason.replace(/^GPU idle rule: /, '')} — ${DID_WORDS[f.did]}`;
}
