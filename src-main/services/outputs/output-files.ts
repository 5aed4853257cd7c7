// Where a run's outputs are on this machine, and the one way to name a file among them from
// outside (web mode's download route): a node's or a sweep cell's outputs folder, and a
// path inside it that cannot leave it — no `..`, no absolute path, no symlink out.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { cellOutputsDir, nodeOutputsDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';

/** Whose outputs: a node's (`node-0`, or its key `r-…/node-0`) or a sweep cell's (`j03`). */
export type OutputsOf = { nodeName: string } | { cellId: string };

export type OutputsLedger = Pick<Ledger, 'getRun' | 'nodesOfRun' | 'listCells'>;

/** The outputs folder of a node or cell of `runId`; not found when the run has no such
 *  node or cell (so no name reaches a folder of another run, or any other folder). */
export function outputsDirOf(
  home: string,
  ledger: OutputsLedger,
  runId: string,
  of: OutputsOf,
): string {
  if (!ledger.getRun(runId))
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  if ('cellId' in of) {
    const ids = ledger.listCells(runId).map((c) => c.id);
    if (!ids.includes(of.cellId))
      throw new TenderError(
        'not_found',
        `run ${runId} has no cell ${of.cellId}`,
        ids.length > 0 ? `its cells: ${ids.join(', ')}` : 'it is not a sweep',
      );
    return cellOutputsDir(home, runId, of.cellId);
  }
  // `node-0`, or its key `r-…/node-0` (of this run only).
  const slash = of.nodeName.lastIndexOf('/');
  const name = slash < 0 ? of.nodeName : of.nodeName.slice(slash + 1);
  const names = [...new Set(ledger.nodesOfRun(runId).map((n) => n.logicalId))];
  if ((slash >= 0 && of.nodeName.slice(0, slash) !== runId) || !names.includes(name))
    throw new TenderError(
      'not_found',
      `run ${runId} has no node ${of.nodeName}`,
      names.length > 0 ? `its nodes: ${names.join(', ')}` : 'it has no nodes yet',
    );
  return nodeOutputsDir(home, runId, name);
}

/** The file `rel` (as `outputs.list` names it: `out/m.json`) inside `dir`, or not found.
 *  Refuses what could name a file outside: an absolute path, a `..` part, a backslash, a
 *  NUL, and a symlink (in the path or the folder) that resolves outside `dir`. */
export function outputFileIn(dir: string, rel: string): string {
  const parts = rel.split('/');
  const isBad =
    rel === '' ||
    isAbsolute(rel) ||
    rel.includes('\\') ||
    rel.includes('\0') ||
    parts.some((p) => p === '' || p === '.' || p === '..');
  if (isBad) throw new TenderError('bad_input', `not a path inside the outputs: ${rel}`);
  const file = join(dir, ...parts);
  if (!existsSync(file)) throw new TenderError('not_found', `no output ${rel}`);
  const real = realpathSync(file);
  const root = realpathSync(dir);
  if (!real.startsWith(root + sep) || !statSync(real).isFile())
    throw new TenderError('not_found', `no output ${rel}`);
  return real;
}

/** Every file under `root`, by path relative to it, sorted. */
export function walkFiles(root: string, rel = ''): { path: string; size: number }[] {
  const dir = join(root, rel);
  if (!existsSync(dir)) return [];
  const out: { path: string; size: number }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walkFiles(root, p));
    else if (e.isFile()) out.push({ path: p, size: statSync(join(root, p)).size });
  }
  return out;
}

/** Web mode's download route's resolver: a run's node or cell output file, confined. */
export function outputFileResolver(
  home: string,
  ledger: OutputsLedger,
): (q: { runId: string; nodeName?: string; cellId?: string; path: string }) => string {
  return (q) => {
    const of: OutputsOf =
      q.cellId !== undefined ? { cellId: q.cellId } : { nodeName: q.nodeName ?? '' };
    return outputFileIn(outputsDirOf(home, ledger, q.runId, of), q.path);
  };
}
