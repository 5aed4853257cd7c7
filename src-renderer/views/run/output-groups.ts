import type { OutputFile } from '../../../src-main/contract';
import { nodeNameOf } from '../../../src-main/contract';

/** One folder of outputs as the run view lists it: a node's, or a sweep cell's (the node
 *  that ran it named beside). */
export interface OutputGroup {
  key: string;
  nodeName: string;
  cellId: string | null;
  /** Where it is under the run's outputs folder: `node-0/outputs/`, `jobs/j0/outputs/`. */
  folder: string;
  files: OutputFile[];
}

/** The files by folder: nodes first, in their order, then cells by id (j0, j1, … j10). */
export function outputGroups(files: readonly OutputFile[]): OutputGroup[] {
  const groups = new Map<string, OutputGroup>();
  for (const f of files) {
    const cellId = f.cellId ?? null;
    const key = cellId === null ? `node:${f.nodeId}` : `cell:${cellId}`;
    let g = groups.get(key);
    if (!g) {
      const nodeName = f.nodeId ? nodeNameOf(f.nodeId) : '';
      g = {
        key,
        nodeName,
        cellId,
        folder: cellId === null ? `${nodeName}/outputs/` : `jobs/${cellId}/outputs/`,
        files: [],
      };
      groups.set(key, g);
    }
    g.files.push(f);
  }
  const byCell = (a: OutputGroup, b: OutputGroup) =>
    (a.cellId ?? '').localeCompare(b.cellId ?? '', 'en', { numeric: true });
  const all = [...groups.values()];
  return [
    ...all.filter((g) => g.cellId === null),
    ...all.filter((g) => g.cellId !== null).sort(byCell),
  ];
}
