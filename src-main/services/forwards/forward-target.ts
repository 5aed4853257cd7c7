// Which node `forward.open` / `tender forward <run> [--node N]` means, and whether its ports
// can be reached now; each refusal names the fix.
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';

const ENDED = new Set(['completed', 'failed', 'cancelled']);
/** A joined agent on a live lease: the node answers on its recorded connection. */
const REACHABLE = new Set(['handed_off', 'dormant']);

/** `node-1`, `1` or a node key (`r-…/node-1`) as the node key; the run's first node when
 *  absent. */
export function nodeKeyOf(
  ledger: Pick<Ledger, 'nodesOfRun'>,
  runId: string,
  node: string | undefined,
): string | null {
  const nodes = ledger.nodesOfRun(runId);
  if (node === undefined)
    return (
      [...nodes].sort((a, b) => a.logicalId.localeCompare(b.logicalId, 'en', { numeric: true }))[0]
        ?.id ?? null
    );
  const logical = node.includes('/')
    ? node.slice(node.indexOf('/') + 1)
    : /^\d+$/.test(node)
      ? `node-${node}`
      : node;
  return (
    nodes.find((n) => n.logicalId === logical && (!node.includes('/') || n.id === node))?.id ?? null
  );
}

/** The node whose port to forward: its run exists and has not ended, and its agent has
 *  joined on a live lease. */
export function forwardTarget(
  ledger: Pick<Ledger, 'getRun' | 'getNode' | 'nodesOfRun'>,
  runId: string,
  node: string | undefined,
): NodeRecord {
  const run = ledger.getRun(runId);
  if (!run) throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  if (ENDED.has(run.status))
    throw new TenderError(
      'bad_input',
      `run ${runId} has ended (${run.status}): there is no job to forward to`,
      'forward a port of a run that is running (`tender status` lists them)',
    );
  const key = nodeKeyOf(ledger, runId, node);
  const rec = key === null ? undefined : ledger.getNode(key);
  if (!rec)
    throw new TenderError(
      'bad_input',
      `run ${runId} has no node ${node ?? '(none yet)'}`,
      `nodes: ${
        ledger
          .nodesOfRun(runId)
          .map((n) => n.logicalId)
          .join(', ') || 'none'
      }`,
    );
  if (!REACHABLE.has(rec.stage) || !rec.connection)
    throw new TenderError(
      'conflict',
      `${rec.logicalId} of ${runId} is ${rec.stage}: its ports can be forwarded once its agent has joined`,
      '`tender forward` waits for it; or try again once `tender status` shows it handed_off',
    );
  return rec;
}

/** Whether a run has ended (its forwards have nothing left to reach). */
export function hasEnded(status: string): boolean {
  return ENDED.has(status);
}
