import { CLAIM_CHECK_DEADLINE_MS, claimProblem } from '../provisioning/claimed-node';
import type { JobEvent } from '../fsm/job-fsm';
import { openEarlySession } from '../transfers/job-transfers';
import { provisionNode } from '../provisioning/provision-node';
import { ClaimCheck } from './claim-check';
import { startEarlyPush } from './early-push';
import { type JobHost, transfersOf } from './job-host';

// Bringing a node's job onto a node: the first lease (or a claimed warm node, checked
// first), and a recovered attempt's new lease after the lost one is destroyed.

/** Brings the node up, replacing a lease that fails to boot (provision-node.ts). A
 *  claimed warm node is checked first: alive, its switch not fired, the key it advertises
 *  the one this job needs; one that is not is destroyed (confirmed) and replaced. */
export async function provision(h: JobHost): Promise<JobEvent> {
  const rec = h.deps.manager.record;
  const d = { ...h.deps, note: h.note };
  // The workspace scan (shared by the run's nodes) runs while the node comes up.
  void h.deps.workspacePlan().catch(() => null);
  if (!rec.claimedFrom || rec.stage !== 'dormant') return pushingEarly(h, () => provisionNode(d));
  // Checked on the job's own link (one connection, which the job then keeps).
  const attempt = h.attempt;
  const check = new ClaimCheck();
  attempt.claim = check;
  // The push's session (a process start on the node) gets ready while the link handshakes.
  if (h.deps.job.workspace) attempt.holdEarlySession(openEarlySession(transfersOf(h)));
  const hello = await Promise.race([
    attempt.link().helloWithin(CLAIM_CHECK_DEADLINE_MS),
    check.lost,
  ]);
  attempt.claim = null;
  const problem =
    typeof hello === 'string' ? `does not answer (${hello})` : claimProblem(hello, rec);
  if (!problem) return { type: 'NodeReady' };
  h.replaceAttempt(); // the replacement's link arms a switch of its own
  h.note(`warm node ${rec.lease?.leaseId ?? rec.label} ${problem}: renting a new node`);
  return provisionNode(d, { replaceFirst: `warm node unusable: ${problem}` });
}

/** A new attempt: the lost (or failed) node's lease is destroyed — confirmed by the
 *  provider — before another is rented; the new agent's log continues the same panes. The
 *  attempt before is disposed first: nothing of it (its pulls above all) acts again. */
export async function recover(h: JobHost): Promise<JobEvent> {
  const rec = h.deps.manager.record;
  h.replaceAttempt();
  const { attempt: n, recoveredFrom } = h.current;
  const after = recoveredFrom ?? 'a failure';
  h.note(
    `── attempt ${n + 1} after ${after}: ${rec.lease?.leaseId ?? rec.label} is destroyed (confirmed) before another node is rented ──`,
  );
  const event = await pushingEarly(h, () =>
    provisionNode(
      { ...h.deps, note: h.note },
      {
        replaceFirst: `recovery after ${after}`,
        agentSeqOffset: h.deps.datastream.lastSeq(h.nodeId, 'agent'),
      },
    ),
  );
  if (event.type === 'NodeReady') {
    const now = h.deps.manager.record;
    h.note(`── attempt ${n + 1} on ${now.lease?.leaseId ?? now.label} ──`);
  }
  return event;
}

/** Runs `boot` while each bootstrap of the node that gets its agent's files in place
 *  starts the job's first push (early-push.ts), held by the attempt now running. */
async function pushingEarly(h: JobHost, boot: () => Promise<JobEvent>): Promise<JobEvent> {
  const stop = h.deps.job.workspace
    ? h.deps.onAgentPrepared?.((node) => {
        if (!h.attempt.keepsEarlyPush(node.label)) h.attempt.holdEarlyPush(startEarlyPush(h, node));
      })
    : undefined;
  try {
    return await boot();
  } finally {
    stop?.();
  }
}
