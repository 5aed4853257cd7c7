// Memoization (`cache = true`): before a sweep's nodes are rented, each cell's strict key
// (jobs/sweep/cell-cache-key.ts) is looked up among completed cells of any run. A hit's
// outputs and receipt are copied into the new cell's folder and it is written completed
// (saying from which run and cell); only the misses queue, and only they rent nodes.
import { cpSync, existsSync } from 'node:fs';
import { cellOutputsDir } from '../../base/paths';
import { TENDER_VERSION } from '../../base/version';
import type { JobSpec, PoolSpec, Receipt, SweepCell } from '../../contract';
import { cellCacheKey } from '../../jobs/sweep/cell-cache-key';
import { receiptFile, writeReceipt } from '../../jobs/run/receipt-writer';
import { acquireHashCache } from '../../jobs/workspace/hash-cache';
import { buildManifest } from '../../jobs/workspace/manifest';
import { scanWorkspace } from '../../jobs/workspace/scan';
import type { NewCell } from '../../ledger/cells';
import type { Ledger } from '../../ledger/ledger';
import { readReceipt } from './receipts';
import { mkdirPrivate } from '../../base/private-files';

export interface CellMemoDeps {
  home: string;
  ledger: Pick<Ledger, 'cellByCacheKey'>;
  hashCacheFile: string;
  now: () => number;
}

/** The workspace's manifest digest, as a push would compute it (the hash cache makes a
 *  second look nearly free, and the push after it too). */
export async function workspaceDigest(job: JobSpec, hashCacheFile: string): Promise<string | null> {
  if (!job.workspace) return null;
  const scan = await scanWorkspace(job.workspace.workdir, job.workspace.exclude);
  const { cache, release } = await acquireHashCache(hashCacheFile);
  try {
    return (await buildManifest(scan, { cache })).digest;
  } finally {
    await release();
  }
}

/** Each cell with its key; a hit also with the cell it takes its outputs from, those
 *  outputs copied into `runs/<runId>/jobs/<cell>/` with a receipt that says so. */
export async function memoizeCells(
  d: CellMemoDeps,
  c: { runId: string; job: JobSpec; pool: PoolSpec; cells: SweepCell[] },
): Promise<NewCell[]> {
  const digest = await workspaceDigest(c.job, d.hashCacheFile);
  return c.cells.map((cell) => {
    const key = cellCacheKey({
      job: c.job,
      values: cell.values,
      workspaceDigest: digest,
      image: c.pool.image ?? null,
      tenderVersion: TENDER_VERSION,
    });
    const hit = d.ledger.cellByCacheKey(key);
    const from = hit && readHitReceipt(d.home, hit.runId, hit.id);
    if (!hit || !from) return { ...cell, cacheKey: key };
    const dir = cellOutputsDir(d.home, c.runId, cell.id);
    const source = cellOutputsDir(d.home, hit.runId, hit.id);
    mkdirPrivate(dir);
    if (existsSync(source)) cpSync(source, dir, { recursive: true });
    const now = d.now();
    const taken = { runId: hit.runId, jobId: hit.id };
    writeReceipt(dir, {
      ...from,
      runId: c.runId,
      jobId: `${c.runId}.${cell.id}`,
      cell: { id: cell.id, values: cell.values },
      cache: { key, hit: taken },
      timings: { startedAt: now, endedAt: now },
      costUsd: 0,
    });
    return { ...cell, cacheKey: key, cacheHit: taken };
  });
}

/** The completed cell's receipt, when its files are still here (deleted outputs: a miss). */
function readHitReceipt(home: string, runId: string, cellId: string): Receipt | null {
  let r: Receipt | null;
  try {
    r = readReceipt(receiptFile(cellOutputsDir(home, runId, cellId)));
  } catch {
    return null; // an unreadable receipt: the cell runs again
  }
  return r?.status === 'completed' ? r : null;
}
