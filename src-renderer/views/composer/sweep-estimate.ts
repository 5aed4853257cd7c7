import type { SweepEstimate } from '../../../src-main/contract';
import { duration } from '../../lib/format';

/** What `run.plan` expects a sweep to take, in a line: "about 12 m 00 s on the clock, 0.4
 *  node-hours (a cell took 2 m 00 s in r-…)". Null when no earlier sweep of the job says. */
export function estimateText(e: SweepEstimate | null | undefined): string | null {
  if (!e || e.cellSeconds === null || e.hours === null || e.nodeHours === null) return null;
  const minutes = Math.max(1, Math.round(e.nodeHours * 60));
  const nodeTime =
    e.nodeHours < 1
      ? `${minutes} node-minute${minutes === 1 ? '' : 's'}`
      : `${e.nodeHours.toFixed(e.nodeHours < 10 ? 1 : 0)} node-hours`;
  return `about ${duration(e.hours * 3_600_000)} on the clock, ${nodeTime} (a cell took ${duration(e.cellSeconds * 1000)} in ${e.basedOn}; setup left out)`;
}
