import type { Ledger } from '../../ledger/ledger';
import type { PhaseState } from '../../../src-agent/wire/protocol';
import type { AgentRequest } from './host-setup-wait';

/** After a run: the node's TENDER_CACHE size as a `node.cache` journal event (the node
 *  view shows the latest). A node that cannot say (an older agent, a dropped link) is
 *  left out: the size is for display, never a reason to fail the job. Never rejects: the
 *  run phase starts it beside the log's drain, which may fail first (a core closing, its
 *  ledger with it) and leave it unawaited. */
export async function journalNodeCache(
  ledger: Pick<Ledger, 'append'>,
  request: AgentRequest,
  at: { runId: string; nodeId: string; now: () => number },
  exit?: Pick<PhaseState, 'cache'>,
): Promise<void> {
  // The run's exit state says it where the walk took a moment; else `status` is asked.
  const cache = exit?.cache ?? (await request('status', {}).catch(() => null))?.cache;
  if (!cache) return;
  try {
    ledger.append({
      ts: at.now(),
      runId: at.runId,
      nodeId: at.nodeId,
      kind: 'node.cache',
      data: { path: cache.path, bytes: cache.bytes },
    });
  } catch {
    // The ledger closed under a run still ending: a display figure is all that is lost.
  }
}
