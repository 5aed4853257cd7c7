import type { Ledger } from '../../ledger/ledger';

/** Each node's attempt of a run and, past the first, what it recovered from (the job step
 *  that began it journals `recoveredFrom`). */
export function recoveredAttempts(
  ledger: Pick<Ledger, 'nodesOfRun' | 'getAttempt' | 'journal'>,
  runId: string,
): { attempt: number; reason: string | null }[] {
  const out: { attempt: number; reason: string | null }[] = [];
  let journal: ReturnType<Ledger['journal']> | null = null;
  for (const n of ledger.nodesOfRun(runId)) {
    const a = ledger.getAttempt(n.id);
    if (!a) continue;
    if (a.attempt === 0) {
      out.push({ attempt: 0, reason: null });
      continue;
    }
    journal ??= ledger.journal(runId);
    const began = journal.findLast(
      (e) => e.nodeId === n.id && e.kind.startsWith('job.') && e.data.attempt === a.attempt,
    );
    const why = began?.data.recoveredFrom;
    out.push({ attempt: a.attempt, reason: typeof why === 'string' ? why : null });
  }
  return out;
}
