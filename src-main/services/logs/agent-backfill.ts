// `logs.backfill`: the records a run's datastream lacks, fetched from each node's agent over
// a connection of its own (as `node.setup` does). The agent keeps the whole log on the
// node with the seqs the datastream uses, so a detached run's log is complete once this
// has run: same seqs, and the datastream drops any seq at or below its last.
import type { AgentLogRecord } from '../../../src-agent/wire/protocol';
import type { LogBackfill, LogRecord, NodeStage } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { AgentClient } from '../../nodes/agent-client';
import { withAgent } from '../../nodes/agent-session';
import type { NodeEndpoint } from '../../providers/provider';
import type { NodeShell } from '../../transport/node-shell';

/** A node that does not answer within this is reported, and its stored log shown: a
 *  `tender logs` must not hang on a host that went away. */
const CONNECT_DEADLINE_MS = 15_000;
/** Behind the agent's last seq and nothing new for this long: give up on the rest. */
const IDLE_MS = 15_000;
/** Stages in which a node's agent has joined and its lease is live. */
const AGENT_STAGES: readonly NodeStage[] = ['agent_joined', 'handed_off', 'dormant'];

export interface AgentBackfillDeps {
  ledger: Pick<Ledger, 'getRun' | 'nodesOfRun'>;
  datastream: Pick<Datastream, 'append' | 'lastSeq' | 'flush' | 'read'>;
  /** A fresh shell to a node (ssh, or a local folder), given up after `deadlineMs`. */
  connect(endpoint: NodeEndpoint, deadlineMs: number): (signal: AbortSignal) => Promise<NodeShell>;
  /** This process drives the run: its agent links store every record already. */
  isDriven(runId: string): boolean;
  /** Only the ledger's writer appends to the datastream (see LogBackfill's `sent`). */
  canStore: boolean;
  /** Where records go that are not stored: the bus's `log.lines`. */
  emit(records: LogRecord[]): void;
}

export type BackfillRun = (runId: string, nodeId?: string, tail?: number) => Promise<LogBackfill[]>;

export function agentBackfill(d: AgentBackfillDeps): BackfillRun {
  return async (runId, nodeId, tail) => {
    const run = d.ledger.getRun(runId);
    if (!run) throw new TenderError('not_found', `no run ${runId}`);
    const nodes = d.ledger.nodesOfRun(runId).filter((n) => !nodeId || n.id === nodeId);
    // A reader cannot see another process's links, but the ledger says whether one drives.
    const active = run.status === 'pending' || run.status === 'running';
    const driven = d.isDriven(runId) || (!d.canStore && active && !run.detached);
    return Promise.all(
      nodes.map((rec) => {
        if (driven) return report(rec, 'driven');
        if (!rec.agent || !rec.connection || !AGENT_STAGES.includes(rec.stage))
          return report(rec, 'no_agent');
        return backfillNode(d, rec, d.canStore ? undefined : tail);
      }),
    );
  };
}

async function backfillNode(
  d: AgentBackfillDeps,
  rec: NodeRecord,
  tail: number | undefined,
): Promise<LogBackfill> {
  // A claimed warm node's log up to here belongs to the runs before (as AgentLogSink has
  // it); a recovered attempt's new agent counts from 1 again, stored after `offset`.
  const base = rec.claimedFrom?.agentSeq ?? 0;
  const offset = rec.agentSeqOffset ?? 0;
  const stored = d.canStore ? d.datastream.lastSeq(rec.id, 'agent') : await lastOnDisk(d, rec);
  let from = Math.max(1, Math.max(base, stored) + 1 - offset); // the agent's seq
  const abort = new AbortController();
  let shell: NodeShell;
  try {
    shell = await d.connect(rec.connection!, CONNECT_DEADLINE_MS)(abort.signal);
  } catch (err) {
    return report(rec, 'unreachable', 0, null, (err as Error).message);
  }
  let count = 0;
  let highest = from - 1;
  let wake = () => {};
  const take = (batch: AgentLogRecord[]) => {
    const kept = batch.filter((r) => r.seq >= from);
    if (kept.length === 0) return;
    if (d.canStore) {
      for (const r of kept) {
        const { ts, src: source, stream, line } = r;
        if (d.datastream.append(rec.id, 'agent', { seq: r.seq + offset, ts, source, stream, line }))
          count++;
      }
    } else {
      d.emit(kept.map((r) => toLogRecord(rec, r, offset)));
      count += kept.length;
    }
    highest = kept[kept.length - 1]!.seq;
    wake();
  };
  const handlers = { onLog: take, onClose: () => wake() };
  const ask = async (client: AgentClient): Promise<LogBackfill> => {
    if (tail !== undefined) {
      const { lastSeq } = await client.request('hello', {});
      from = Math.max(from, lastSeq - tail + 1);
    }
    const { lastSeq } = await client.request('subscribe', { fromSeq: from });
    const missing = await reach(
      lastSeq,
      () => highest,
      client,
      (w) => (wake = w),
    );
    if (d.canStore) d.datastream.flush();
    if (count === 0 && !missing) return report(rec, 'complete', 0, lastSeq);
    const detail = missing
      ? `the agent stopped sending at seq ${highest} of ${lastSeq}: ${missing}`
      : null;
    return report(rec, d.canStore ? 'stored' : 'sent', count, lastSeq, detail);
  };
  try {
    return await withAgent(shell, rec.agent!.address, handlers, 'log backfilled', ask);
  } catch (err) {
    if (d.canStore) d.datastream.flush();
    return report(rec, 'unreachable', count, null, (err as Error).message);
  } finally {
    abort.abort();
  }
}

/** Waits until every record up to `lastSeq` has arrived; null then, else why it stopped
 *  (the connection closed, or nothing came for IDLE_MS). Woken by each batch, no polling. */
async function reach(
  lastSeq: number,
  highest: () => number,
  client: AgentClient,
  onWake: (wake: () => void) => void,
): Promise<string | null> {
  while (highest() < lastSeq) {
    if (client.isClosed) return 'the connection closed';
    const seen = highest();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, IDLE_MS);
      onWake(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (highest() === seen && !client.isClosed) return `nothing came for ${IDLE_MS / 1000} s`;
  }
  return null;
}

/** The last seq a read-only process finds on disk. It never opens the writer's file for
 *  writing (opening one repairs its tail, which could cut a line being written). The last
 *  two lines are read: the very last may be torn, being written right now. */
async function lastOnDisk(d: AgentBackfillDeps, rec: NodeRecord): Promise<number> {
  const last = await d.datastream.read(rec.runId, {
    nodeId: rec.id,
    channel: 'agent',
    fromSeq: 1,
    limit: 2,
    tail: 2,
  });
  return last.at(-1)?.seq ?? 0;
}

function toLogRecord(rec: NodeRecord, r: AgentLogRecord, offset: number): LogRecord {
  return {
    run: rec.runId,
    node: rec.id,
    channel: 'agent',
    seq: r.seq + offset,
    ts: r.ts,
    source: r.src,
    stream: r.stream,
    line: r.line,
  };
}

function report(
  rec: NodeRecord,
  outcome: LogBackfill['outcome'],
  records = 0,
  agentLastSeq: number | null = null,
  detail: string | null = null,
): LogBackfill {
  return { nodeId: rec.id, outcome, records, agentLastSeq, detail };
}
