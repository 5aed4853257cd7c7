// Builds and writes a finished job's receipt (contract/receipt.ts) from what the job knew:
// its spec, the node record (placement, what the agent probed), the last pull of its
// outputs and the workspace manifest it was given. Pure but for the write.
import { existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JobSpec, Receipt } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import type { JobState } from '../fsm/job-fsm';
import type { PulledOutputs } from '../outputs/pull';
import { hostSetupScript } from '../host/host-declaration';
import { mkdirPrivate, writePrivateFile } from '../../base/private-files';

export interface ReceiptFacts {
  runId: string;
  jobId: string;
  job: JobSpec;
  node: NodeRecord;
  state: Pick<JobState, 'attempt' | 'status' | 'exitCode' | 'reason'>;
  pulled: PulledOutputs | null;
  /** A sweep's cell. */
  cell?: { id: string; values: Record<string, string> };
  /** Memoization: the key, and the job whose outputs were taken (null: it ran). */
  cache?: { key: string; hit: { runId: string; jobId: string } | null };
  workspace: { manifest: string; files: number } | null;
  startedAt: number;
  endedAt: number;
  costUsd: number;
  tenderVersion: string;
  installId: string;
}

/** Where a node's receipt lives: beside its outputs. */
export function receiptFile(outputsDir: string): string {
  return join(dirname(outputsDir), 'receipt.json');
}

export function buildReceipt(f: ReceiptFacts): Receipt {
  const { job, node, state } = f;
  return {
    version: 1,
    runId: f.runId,
    jobId: f.jobId,
    node: node.logicalId,
    attempt: state.attempt,
    status: state.status,
    exitCode: state.exitCode,
    reason: state.reason,
    job: {
      name: job.name,
      run: job.run,
      setup: job.setup ?? null,
      setupFingerprint: job.setup_fingerprint,
      runSetup: job.run_setup ?? null,
      hostSetup: job.host_setup.map(hostSetupScript),
      env: Object.entries(job.env).map(([name, v]) => ({ name, secret: typeof v !== 'string' })),
      params: job.params,
      constraints: job.constraints,
    },
    workspace: { manifest: f.workspace?.manifest ?? null, files: f.workspace?.files ?? null },
    outputs: { files: f.pulled?.files ?? [], missing: f.pulled?.missing ?? [] },
    placement: {
      provider: node.desired.provider,
      leaseId: node.lease?.leaseId ?? null,
      image: typeof node.desired.shape.image === 'string' ? node.desired.shape.image : null,
      hostKey: node.agent?.hostKey ?? node.desired.hostKey,
      agentVersion: node.agent?.version ?? null,
      capabilities: node.agent?.capabilities ?? {},
    },
    timings: { startedAt: f.startedAt, endedAt: f.endedAt },
    costUsd: f.costUsd,
    tenderVersion: f.tenderVersion,
    installId: f.installId,
    ...(f.cell ? { cell: f.cell } : {}),
    ...(f.cache ? { cache: f.cache } : {}),
  };
}

/** Writes it atomically (a crash leaves the last whole receipt, or none). */
export function writeReceipt(outputsDir: string, receipt: Receipt): string {
  const file = receiptFile(outputsDir);
  mkdirPrivate(dirname(file));
  const tmp = `${file}.tmp-${process.pid}`;
  writePrivateFile(tmp, `${JSON.stringify(receipt, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

/** Where a run keeps the file list of a workspace it pushed, by manifest digest (receipts
 *  name the digest; `rerun --receipt` diffs the folder against it file by file). */
export function workspaceListingFile(runDir: string, digest: string): string {
  return join(runDir, 'workspaces', `${digest.slice(0, 32)}.json`);
}

export interface WorkspaceListing {
  digest: string;
  /** path → sha256. */
  files: Record<string, string>;
}

/** Written once per run and digest (every cell of a sweep shares its node's). */
export function writeWorkspaceListing(
  runDir: string,
  digest: string,
  files: Iterable<[string, { sha256: string }]>,
): void {
  const file = workspaceListingFile(runDir, digest);
  if (existsSync(file)) return;
  mkdirPrivate(dirname(file));
  const listing: WorkspaceListing = {
    digest,
    files: Object.fromEntries([...files].map(([p, e]) => [p, e.sha256])),
  };
  const tmp = `${file}.tmp-${process.pid}`;
  writePrivateFile(tmp, JSON.stringify(listing));
  renameSync(tmp, file);
}
