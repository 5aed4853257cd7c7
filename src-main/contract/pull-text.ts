import type { NodePull } from './node-view';

/** A provisioning lease's status as one line: the provider's own words, with the pull's
 *  percentage where they give its bytes but not the percentage
 *  ("loading: Downloading 6.8GB/15GB (45%)"). */
export function pullText(p: Pick<NodePull, 'line' | 'percent'>): string {
  const pct = p.percent !== null && !p.line.includes('%') ? ` (${Math.floor(p.percent)}%)` : '';
  return `${p.line}${pct}`;
}
