import type { Ledger } from '../../ledger/ledger';

/** Each node's attempt of a run (0: the first), from the attempt rows: cheap enough to ask
 *  at every change of the run. */
export function runAttempts(
  ledger: Pick<Ledger, 'nodesOfRun' | 'getAttempt'>,
  runId: string,
): { nodeId: string; attempt: number }[] {
  return ledger.nodesOfRun(runId).flatMap((n) => {
    const a = ledger.getAttempt(n.id);
    return a ? [{ nodeId: n.id, attempt: a.attempt }] : [];
  });
}

/** What a node's `attempt` recovered from: the job step that began it journals
 *  `recoveredFrom` (null when it is not found). Reads the run's journal: ask once per
 *  attempt, not per change. */
export function recoveredFrom(
  ledger: Pick<Ledger, 'journal'>,
  runId: string,
  nodeId: string,
  attempt: number,
): string | null {
  const began = ledger
    .journal(runId)
    .findLast(
      (e) => e.nodeId === nodeId && e.kind.startsWith('job.') && e.data.attempt === attempt,
    );
  const why = began?.data.recoveredFrom;
  return typeof why === 'string' ? why : null;
}
