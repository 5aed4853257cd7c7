// What a node's job prints, read over the link from its agent's log while this process has
// a forward open to it and does not drive its run: a detached run's datastream is fed by no
// one, so a Jupyter token printed there would never reach its forward (docs/forwards.md).
import type { AgentLogRecord } from '../../../src-agent/wire/protocol';
import type { LogRecord } from '../../contract';
import type { AgentAddress } from '../../ledger/node-record';
import { AgentClient } from '../../nodes/agent-client';
import { agentCommand } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';

/** The first wait before following again after the agent link closed; doubled each time it
 *  fails again (an agent being replaced, a host that went away), reset once one subscribes. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** Where the node's agent is now, read again at each (re)start: a recovered node has a new
 *  agent whose seqs are stored after `offset`. */
export interface FollowTarget {
  runId: string;
  nodeId: string;
  address: AgentAddress;
  /** Agent seqs up to this belong to the runs before (a claimed warm node). */
  base: number;
  /** Added to an agent seq to make the datastream's. */
  offset: number;
}

export interface AgentLogFollowDeps {
  /** The shell the node's forwards share (the ForwardSet's kept connection). */
  shell: () => Promise<NodeShell>;
  /** The node's agent now; null when it has none (the follow waits and looks again). */
  target: () => FollowTarget | null;
  /** The next datastream seq wanted: records below it were seen already. */
  nextSeq: () => number;
  onRecords: (records: LogRecord[]) => void;
}

/** One node's agent log, subscribed from where this process stopped, live until stopped. */
export class AgentLogFollow {
  readonly #d: AgentLogFollowDeps;
  #client: AgentClient | null = null;
  #timer: NodeJS.Timeout | null = null;
  #retryMs = RETRY_FIRST_MS;
  #isStarted = false;
  #isStopped = false;

  constructor(d: AgentLogFollowDeps) {
    this.#d = d;
  }

  /** Starts following (once; later calls do nothing). */
  start(): void {
    if (this.#isStarted || this.#isStopped) return;
    this.#isStarted = true;
    void this.#follow();
  }

  stop(): void {
    this.#isStopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#client?.close('forwards closed');
    this.#client = null;
  }

  async #follow(): Promise<void> {
    const t = this.#d.target();
    if (!t) return this.#again();
    let shell: NodeShell;
    try {
      shell = await this.#d.shell();
    } catch {
      return this.#again();
    }
    if (this.#isStopped) return;
    const client = AgentClient.open(shell, agentCommand(t.address, 'attach'), {
      onLog: (batch) => {
        if (this.#client === client) this.#d.onRecords(batch.map((r) => toRecord(t, r)));
      },
      onClose: () => {
        if (this.#client !== client) return;
        this.#client = null;
        this.#again();
      },
    });
    this.#client = client;
    try {
      const fromSeq = Math.max(t.base + 1, this.#d.nextSeq() - t.offset, 1);
      await client.request('subscribe', { fromSeq });
      this.#retryMs = RETRY_FIRST_MS;
    } catch {
      if (this.#client === client) client.close('subscribe failed'); // onClose: again
    }
  }

  #again(): void {
    if (this.#isStopped || this.#timer) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#isStopped) void this.#follow();
    }, wait);
  }
}

function toRecord(t: FollowTarget, r: AgentLogRecord): LogRecord {
  return {
    run: t.runId,
    node: t.nodeId,
    channel: 'agent',
    seq: r.seq + t.offset,
    ts: r.ts,
    source: r.src,
    stream: r.stream,
    line: r.line,
  };
}
