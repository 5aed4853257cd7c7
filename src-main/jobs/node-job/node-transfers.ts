import type { NodeRecord } from '../../ledger/node-record';
import { pullCheckpoints, restoreCheckpoints } from '../checkpoints/checkpoint-transfer';
import type { JobEvent } from '../fsm/job-fsm';
import {
  closeEarlySession,
  openEarlySession,
  pullJobOutputs,
  pullRunningOutputs,
  pushJobWorkspace,
} from '../transfers/job-transfers';
import { pullOutputs, type PulledOutputs } from '../outputs/pull';
import { DEFAULT_PULL_EVERY_S, type PeriodicPulls } from '../transfers/periodic-pulls';
import { outputsNote } from '../transfers/transfer-notes';
import type { Attempt, EarlyPush } from './attempt';
import { agentAddress, type JobHost, transfersOf } from './job-host';
import { beginPrelude, firstPhase } from './prelude';

// A node's job's bulk transfers: the workspace pushed (and a recovered attempt's
// checkpoints restored) before it runs, the outputs and checkpoints pulled while it runs
// and at its end. Each is bound to the attempt it was started for.

/** Pushes the workspace; a recovered attempt then restores its checkpoints — before any
 *  pull of its own can run (its pulls start with its run phase). */
export async function materialize(h: JobHost): Promise<JobEvent> {
  const attempt = h.attempt;
  attempt.link(); // comes up while the push goes on: the run phase needs it next
  // A node not kept goes once its job ends: its destroy is made ready now, off the end.
  if (!h.deps.keep) h.deps.manager.expectDestroy();
  // A fresh node's push may have begun while its agent started (early-push.ts).
  const push = attempt.takeEarlyPush();
  // A node made for this job: what its first phase waits for goes while the push does.
  if (push?.label === h.deps.manager.record.label) beginPreludeAhead(h, attempt);
  const pushed = await earlyPushDone(h, push);
  // A claimed warm node's session opened while its link handshook; a fresh node's opens
  // now, beside the link's hello (the node's process start off the way to the push).
  const held = attempt.takeEarlySession();
  const plan = pushed ? null : await h.deps.workspacePlan();
  const early = (await held) ?? (plan ? await openEarlySession(transfersOf(h, attempt)) : null);
  if (plan) {
    const memory = { store: h.deps.manifestMemory, key: h.deps.manager.record.label };
    const opts = {
      hashCacheFile: h.deps.hashCacheFile,
      linkRatesFile: h.deps.linkRatesFile,
      memory,
    };
    await pushJobWorkspace(transfersOf(h, attempt), plan, opts, early);
  } else await closeEarlySession(early);
  const ckpt = h.deps.job.checkpoints;
  if (ckpt && h.current.attempt > 0) await restore(h, attempt, ckpt);
  return { type: 'WorkspaceMaterialized' };
}

/** The first phase's prelude, begun now; it ends where the job heads elsewhere (a stop). */
function beginPreludeAhead(h: JobHost, attempt: Attempt): void {
  const phase = firstPhase(h);
  const isCurrent = () =>
    !attempt.isDisposed && (h.current.phase === 'materializing' || h.current.phase === phase);
  attempt.holdPrelude(beginPrelude(h, phase, isCurrent));
}

/** Whether an early push (if any) to the node's lease now brought the workspace over; one
 *  that failed is said, and the push is made again the usual way. */
async function earlyPushDone(h: JobHost, push: EarlyPush | null): Promise<boolean> {
  if (!push) return false;
  if (push.label !== h.deps.manager.record.label) {
    push.abort();
    return false;
  }
  try {
    await push.done;
    return true;
  } catch (err) {
    h.note(
      `the push begun while the agent started failed (${(err as Error).message}): pushing again`,
    );
    return false;
  }
}

/** A recovered attempt resumes from the newest complete checkpoint generation. */
async function restore(h: JobHost, attempt: Attempt, path: string): Promise<void> {
  const note = await attempt
    .link()
    .withBulkShell((shell) => restoreCheckpoints(shell, agentAddress(h), path, h.checkpoints));
  h.note(note);
}

/** Pulls the outputs and the checkpoints every `checkpoint_every_s` while the run phase
 *  runs (periodic-pulls.ts), for this attempt only: disposing it stops them. */
export function pullWhileRunning(h: JobHost, attempt: Attempt): PeriodicPulls {
  const everyMs = (h.deps.job.checkpoint_every_s ?? DEFAULT_PULL_EVERY_S) * 1000;
  return attempt.startPulls(everyMs, async () => {
    if (h.isDetached) return;
    const path = h.deps.job.checkpoints;
    if (path) await pullCheckpointsNow(h, attempt, path);
    await pullRunningOutputs(transfersOf(h, attempt), h.deps.job.outputs, h.deps.outputsDir);
  });
}

/** One checkpoint pull from `attempt`'s node, into a new generation; a failure is noted. */
export async function pullCheckpointsNow(
  h: JobHost,
  attempt: Attempt,
  path: string,
): Promise<void> {
  try {
    const note = await attempt.link().withBulkShell((shell) =>
      pullCheckpoints(shell, agentAddress(h), path, h.checkpoints, {
        attempt: attempt.n,
        now: h.deps.now,
      }),
    );
    h.note(note);
  } catch (err) {
    if (!attempt.isDisposed) h.note(`checkpoints not pulled: ${(err as Error).message}`);
  }
}

/** The final collection of the job's outputs (a sweep node: only a cell a stop caught). */
export async function collect(h: JobHost): Promise<JobEvent> {
  if (!h.deps.manager.record.agent) return { type: 'OutputsCollected', missing: [] };
  const { job, outputsDir } = h.deps;
  const attempt = h.attempt;
  if (h.deps.sweep) return collectStoppedCell(h, attempt);
  return pullJobOutputs(
    transfersOf(h, attempt),
    job.outputs,
    outputsDir,
    (pulled) => {
      attempt.collected = true;
      h.pulled = pulled;
      attempt.renewNow();
    },
    attempt.glanceAhead,
  );
}

/** A sweep node collects only a cell a stop caught (each cell brought its own). */
async function collectStoppedCell(h: JobHost, attempt: Attempt): Promise<JobEvent> {
  attempt.collected = true;
  const into = attempt.cells?.collectInto();
  if (!into) return { type: 'OutputsCollected', missing: [] };
  let pulled: PulledOutputs | null = null;
  if (h.deps.job.outputs.length > 0)
    await pullJobOutputs(transfersOf(h, attempt), h.deps.job.outputs, into.dir, (p) => {
      pulled = p;
    });
  attempt.cells?.collected(pulled);
  return { type: 'OutputsCollected', missing: [] };
}

/** A gone node's outputs, from where its files still are (afterEndShell), best effort. */
export async function collectAfterEnd(h: JobHost, rec: NodeRecord): Promise<void> {
  const { job, outputsDir } = h.deps;
  if (job.outputs.length === 0 || !rec.agent) return;
  const shell = await h.deps.afterEndShell?.(rec).catch(() => null);
  if (!shell) return;
  try {
    const pulled = await pullOutputs(shell, rec.agent.address, job.outputs, outputsDir, {
      incremental: true,
    });
    h.pulled = pulled;
    h.note(`after the node ended, ${outputsNote(pulled)}`);
  } catch (err) {
    h.note(`outputs not collected after the node ended: ${(err as Error).message}`);
  } finally {
    await shell.close();
  }
}
