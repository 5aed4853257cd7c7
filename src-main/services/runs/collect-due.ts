import { isTeardownToActOn } from '../../jobs/teardown/node-loss';
import { readTeardownOnDisk } from '../../jobs/teardown/teardown-on-disk';
import { withAgent } from '../../nodes/agent-session';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { NodeFactory } from '../nodes/node-factory';
import type { RunService } from './run-service';
import { isStoppedWithDisk, type WakeDeps, wakeStopped } from './wake-stopped';

/** A node that does not answer within this is left for the reconciler and a later try. */
const PROBE_DEADLINE_MS = 15_000;

/** Phases in which a job can have ended on its node while nobody drove it. Before them
 *  the agent still answers for the job before (a claimed warm node): nothing is due. */
const STARTED = new Set(['setup', 'run', 'collecting']);

export interface CollectDueDeps {
  ledger: Pick<Ledger, 'listRuns' | 'nodesOfRun' | 'getAttempt' | 'getLease' | 'append'>;
  runs: Pick<RunService, 'attach' | 'isDriven'>;
  factory: Pick<NodeFactory, 'connector'>;
  /** Nodes that stopped themselves with their outputs are started again (wake-stopped.ts). */
  wake?: Omit<WakeDeps, 'ledger' | 'factory'>;
}

export interface CollectDueResult {
  /** Runs now driven again: their outputs are being collected. */
  attached: string[];
  /** Nodes stopped with uncollected outputs that could not be started again, and why. */
  stopped: { runId: string; leaseId: string; reason: string }[];
}

/** Runs nobody drives (detached, or left by a process that is gone) are picked up: with
 *  `all`, every one (the desktop app and `tender serve`, long-lived drivers); otherwise
 *  only those whose job has ended on every node, so their outputs are collected and their
 *  nodes torn down (`tender status`). Returns the runs attached. */
export async function collectDue(
  d: CollectDueDeps,
  opts: { all: boolean },
): Promise<CollectDueResult> {
  const attached: string[] = [];
  const stopped: CollectDueResult['stopped'] = [];
  for (const run of d.ledger.listRuns()) {
    if (!run.detached || d.runs.isDriven(run.id)) continue;
    if (run.status !== 'pending' && run.status !== 'running') continue;
    const nodes = d.ledger.nodesOfRun(run.id).filter(isJoined);
    if (nodes.length === 0) continue;
    const asleep = await wakeAll(d, nodes);
    if (asleep.length > 0) {
      stopped.push(...asleep.map((a) => ({ runId: run.id, ...a })));
      continue;
    }
    const started = nodes.every((n) => STARTED.has(d.ledger.getAttempt(n.id)?.phase ?? ''));
    const ended =
      opts.all || (started && (await Promise.all(nodes.map((n) => jobEnded(d, n)))).every(Boolean));
    if (!ended) continue;
    try {
      d.runs.attach(run.id);
      attached.push(run.id);
    } catch {
      // Ended meanwhile, or another process drives it: nothing is due here.
    }
  }
  return { attached, stopped };
}

/** Starts every node of the run that stopped itself with its outputs; returns those that
 *  could not be started, and why. */
async function wakeAll(
  d: CollectDueDeps,
  nodes: NodeRecord[],
): Promise<{ leaseId: string; reason: string }[]> {
  if (!d.wake) return [];
  const wake = { ...d.wake, ledger: d.ledger, factory: d.factory };
  const failed: { leaseId: string; reason: string }[] = [];
  for (const n of nodes) {
    if (!isStoppedWithDisk(wake, n)) continue;
    const woke = await wakeStopped(wake, n);
    if (!woke.ok) failed.push({ leaseId: n.lease?.leaseId ?? n.label, reason: woke.reason });
  }
  return failed;
}

function isJoined(n: NodeRecord): boolean {
  return (n.stage === 'dormant' || n.stage === 'handed_off') && !!n.agent && !!n.connection;
}

/** Whether the node's agent says the job's run phase has exited, that its switch kept the
 *  outputs waiting, or that its switch fired (isTeardownToActOn), asked over a connection
 *  of its own; where no agent answers, whether its switch fired and ended it (its record on
 *  the node's disk). A fired node's driver destroys its lease, which may bill on until then
 *  (a provider without a per-instance credential). */
async function jobEnded(d: CollectDueDeps, n: NodeRecord): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), PROBE_DEADLINE_MS);
  const connect = d.factory.connector(n.connection!, PROBE_DEADLINE_MS);
  try {
    // Not reached: neither its agent nor its disk can say anything (no second wait).
    const shell = await connect(abort.signal).catch(() => null);
    if (!shell) return false;
    const status = await withAgent(shell, n.agent!.address, {}, 'probed', (client) =>
      client.request('status', {}, PROBE_DEADLINE_MS),
    );
    const teardown = status.teardown?.state;
    return (
      status.phases.run?.state === 'exited' ||
      teardown === 'outputs_kept' ||
      (teardown !== undefined && isTeardownToActOn(teardown))
    );
  } catch {
    const record = await readTeardownOnDisk(connect, n.agent!.address, PROBE_DEADLINE_MS);
    return record !== null && isTeardownToActOn(record.state);
  } finally {
    clearTimeout(timer);
  }
}
