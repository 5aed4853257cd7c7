// A finished job's receipt (its provenance): what ran, on what, from which inputs, to
// which outputs — enough to see what a result came from and to run it again. Written by
// the app beside the node's outputs (`runs/<run>/<node>/receipt.json`). Never a secret
// value: env is listed by name, secrets marked.
import { z } from 'zod';

export const Receipt = z.object({
  version: z.literal(1),
  runId: z.string(),
  /** TENDER_JOB_ID. */
  jobId: z.string(),
  node: z.string(),
  attempt: z.number(),
  status: z.string(),
  exitCode: z.number().nullable(),
  reason: z.string().nullable(),
  job: z.object({
    name: z.string(),
    run: z.string(),
    setup: z.string().nullable(),
    setupFingerprint: z.array(z.string()),
    runSetup: z.string().nullable(),
    hostSetup: z.array(z.string()),
    /** Names only; `secret: true` for those whose value never left this machine in clear. */
    env: z.array(z.object({ name: z.string(), secret: z.boolean() })),
    params: z.record(z.string(), z.string()),
    constraints: z.array(z.string()),
  }),
  workspace: z.object({
    /** The manifest digest of what the node was given (null: no workspace, or unknown). */
    manifest: z.string().nullable(),
    files: z.number().nullable(),
  }),
  outputs: z.object({
    files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string() })),
    missing: z.array(z.string()),
  }),
  placement: z.object({
    provider: z.string(),
    leaseId: z.string().nullable(),
    image: z.string().nullable(),
    hostKey: z.string(),
    agentVersion: z.string().nullable(),
    capabilities: z.record(z.string(), z.union([z.string(), z.number()])),
  }),
  timings: z.object({ startedAt: z.number(), endedAt: z.number() }),
  /** What the run's leases of this node cost, in dollars, when it ended. */
  costUsd: z.number(),
  tenderVersion: z.string(),
  /** The Tender install (its ledger) that wrote it; absent from receipts before it was. */
  installId: z.string().optional(),
  /** A sweep's cell: its id (`j03`) and the values the sweep set. */
  cell: z.object({ id: z.string(), values: z.record(z.string(), z.string()) }).optional(),
  /** Memoization: the key this job was looked up by, and the completed job whose outputs
   *  it took instead of running (null: it ran). */
  cache: z
    .object({
      key: z.string(),
      hit: z.object({ runId: z.string(), jobId: z.string() }).nullable(),
    })
    .optional(),
});
export type Receipt = z.infer<typeof Receipt>;

/** `rerun --verify`: the outputs of a rerun against the receipt's, by path and hash. */
export interface OutputsComparison {
  same: string[];
  differ: string[];
  /** In the receipt, not produced again. */
  missing: string[];
  /** Produced again, not in the receipt. */
  extra: string[];
}

export function compareOutputs(before: Receipt, after: Receipt): OutputsComparison {
  const was = new Map(before.outputs.files.map((f) => [f.path, f.sha256]));
  const now = new Map(after.outputs.files.map((f) => [f.path, f.sha256]));
  const out: OutputsComparison = { same: [], differ: [], missing: [], extra: [] };
  for (const [path, sha] of was) {
    const again = now.get(path);
    if (again === undefined) out.missing.push(path);
    else (again === sha ? out.same : out.differ).push(path);
  }
  for (const path of now.keys()) if (!was.has(path)) out.extra.push(path);
  return out;
}
