// `rerun --receipt`: what a receipt's job becomes again, and how the workspace today
// differs from the one it was given — by digest, and file by file from the run's listing
// of that workspace (jobs/run/receipt-writer.ts) when it is still here.
import { existsSync, readFileSync } from 'node:fs';
import { runDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import type { JobSpec, Receipt } from '../../contract';
import { workspaceListingFile, type WorkspaceListing } from '../../jobs/run/receipt-writer';
import { acquireHashCache } from '../../jobs/workspace/hash-cache';
import { buildManifest } from '../../jobs/workspace/manifest';
import { scanWorkspace } from '../../jobs/workspace/scan';
import type { Ledger } from '../../ledger/ledger';
import type { RunRow } from '../../ledger/rows';

export interface WorkspaceDiff {
  same: boolean;
  added: string[] | null;
  removed: string[] | null;
  changed: string[] | null;
}

/** The receipt's run, from this ledger; another install's receipt is refused by name. */
export function receiptRun(ledger: Pick<Ledger, 'installId' | 'getRun'>, r: Receipt): RunRow {
  const mine = ledger.installId();
  if (r.installId !== undefined && r.installId !== mine)
    throw new TenderError(
      'bad_input',
      `receipt ${r.jobId} was written by another Tender install (${r.installId}; this one is ${mine})`,
      'rerun it on the machine that ran it, or run its job file here with `tender run`',
    );
  const run = ledger.getRun(r.runId);
  if (!run)
    throw new TenderError(
      'bad_input',
      `receipt ${r.jobId}: its run ${r.runId} is not in this ledger (another install, or a removed home)`,
      'run its job file with `tender run`, with the params the receipt lists',
    );
  return run;
}

/** The job again: the run's job as stored, with the receipt's params, as one job (a cell
 *  of a sweep is rerun alone), never from the cache (a rerun to check a result must run). */
export function receiptJob(stored: JobSpec, r: Receipt): JobSpec {
  const { sweep: _sweep, ...job } = stored;
  return { ...job, params: r.job.params, cache: false };
}

export async function diffWorkspace(
  home: string,
  job: JobSpec,
  r: Receipt,
  hashCacheFile: string,
): Promise<WorkspaceDiff> {
  const then = r.workspace.manifest;
  if (!job.workspace || then === null)
    return { same: then === null, added: null, removed: null, changed: null };
  const scan = await scanWorkspace(job.workspace.workdir, job.workspace.exclude);
  const { cache, release } = await acquireHashCache(hashCacheFile);
  const now = await buildManifest(scan, { cache }).finally(release);
  if (now.digest === then) return { same: true, added: [], removed: [], changed: [] };
  const file = workspaceListingFile(runDir(home, r.runId), then);
  if (!existsSync(file)) return { same: false, added: null, removed: null, changed: null };
  const listing = JSON.parse(readFileSync(file, 'utf8')) as WorkspaceListing;
  const added: string[] = [];
  const changed: string[] = [];
  for (const [path, e] of now.files) {
    const before = listing.files[path];
    if (before === undefined) added.push(path);
    else if (before !== e.sha256) changed.push(path);
  }
  const removed = Object.keys(listing.files).filter((p) => !now.files.has(p));
  return { same: false, added, removed, changed };
}
