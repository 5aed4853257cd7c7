import type { RunView } from '../../src-main/contract';

/** A run's view as a query returned it, keeping each node's GPU summary from the cached one
 *  where the new view carries none (`run.get` and `run.start` leave it out; `node.changed`
 *  and `run.changed` fill it): a refetch does not blank the sparklines. `null` (no sample,
 *  or the node is gone) replaces it. */
export function keepGpu(prev: RunView | undefined, next: RunView): RunView {
  if (!prev || next.nodes.every((n) => n.gpu !== undefined)) return next;
  const before = new Map(prev.nodes.map((n) => [n.id, n.gpu]));
  return {
    ...next,
    nodes: next.nodes.map((n) =>
      n.gpu !== undefined || before.get(n.id) === undefined ? n : { ...n, gpu: before.get(n.id) },
    ),
  };
}
