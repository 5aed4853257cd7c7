import {
  ForwardSyntaxError,
  forwardLabel,
  forwardUrl,
  parseForwards,
  type PortForwardSpec,
  type RemoteForwardSpec,
} from '../../contract/forward';
import type { ForwardView, LogRecord } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import { type Forward, ForwardSet } from '../../nodes/forwards/forward-set';
import type { NodeEndpoint } from '../../providers/provider';
import type { NodeShell } from '../../transport/node-shell';
import { forwardTarget, nodeKeyOf } from './forward-target';
import { TokenWatch } from './token-watch';
import { AgentLogFollow, type FollowTarget } from './agent-log-follow';
import type { NodeRecord } from '../../ledger/node-record';

/** A forward's connection to its node is made (and made again) within this. */
const CONNECT_DEADLINE_MS = 30_000;
/** The same notice about a node's forward is written once in this long (a browser retrying
 *  a port nothing listens on would write one a second). */
const NOTE_QUIET_MS = 30_000;

export interface ForwardServiceDeps {
  ledger: Pick<Ledger, 'getRun' | 'getNode' | 'nodesOfRun'>;
  /** A shell to an endpoint (the NodeFactory's connector: keys, pinned host key). */
  connector: (
    endpoint: NodeEndpoint,
    deadlineMs: number,
  ) => (signal: AbortSignal) => Promise<NodeShell>;
  /** Whether this process drives the run: its agent links feed the datastream and `feed`
   *  as records come. Where not, a local forward follows the node's agent log itself. */
  isDriven: (runId: string) => boolean;
  /** A page of a node's agent log from the datastream. */
  readAgentLog: (nodeId: string, fromSeq: number, limit: number) => Promise<LogRecord[]>;
  /** A run's forwards changed: all of them (the `forward.changed` event). */
  onChange: (runId: string, forwards: ForwardView[]) => void;
  /** A line for the node's log (a connection that could not be carried); the writer only. */
  note?: (nodeId: string, line: string) => void;
}

interface NodeForwards {
  nodeId: string;
  runId: string;
  set: ForwardSet;
  tokens: TokenWatch;
  /** The agent log followed over the link (a run this process does not drive). */
  follow: AgentLogFollow;
}

/** This process's port forwards, by node (docs/forwards.md): each node's set shares one
 *  SSH connection to the node's recorded endpoint, made again when it drops; the job opens
 *  a node's declared forwards when its run phase starts and closes them at teardown, and
 *  `forward.open` / `tender forward` open more. Nothing listens beyond 127.0.0.1. */
export class ForwardService {
  readonly #nodes = new Map<string, NodeForwards>();
  readonly #noted = new Map<string, number>();
  #isClosed = false;

  constructor(private readonly d: ForwardServiceDeps) {}

  /** Forwards a node port to this machine (`nodeName`: `node-0`, `0` or a key; default:
   *  the run's first node). */
  async open(
    runId: string,
    nodeName: string | undefined,
    spec: PortForwardSpec,
  ): Promise<ForwardView> {
    const n = this.#nodeFor(runId, nodeName);
    const f = await this.#opening(n, () => n.set.openLocal(spec));
    await n.tokens.refresh();
    // Nothing of this process feeds a run it does not drive (a detached one: no process
    // does): what the job prints, a notebook's token, is read from the node's agent.
    if (!this.d.isDriven(n.runId)) n.follow.start();
    this.#changed(n.runId);
    return this.#view(n, f);
  }

  /** A node port on the node's 127.0.0.1 reaching `host:localPort` here. */
  async openRemote(
    runId: string,
    nodeName: string | undefined,
    spec: RemoteForwardSpec,
  ): Promise<ForwardView> {
    const n = this.#nodeFor(runId, nodeName);
    const f = await this.#opening(n, () => n.set.openRemote(spec));
    this.#changed(n.runId);
    return this.#view(n, f);
  }

  /** Opens a node's declared forwards (`[job] ports`, `remote_ports`): for the job to call
   *  when its run phase starts. Bad entries are bad_input before anything opens; a forward
   *  that cannot open (a local port in use) is named in `problems` and the node's log, and
   *  the others open. */
  async openDeclared(
    nodeId: string,
    ports: readonly (number | string)[],
    remotePorts: readonly string[],
  ): Promise<{ forwards: ForwardView[]; problems: string[] }> {
    let specs: ReturnType<typeof parseForwards>;
    try {
      specs = parseForwards(ports, remotePorts);
    } catch (err) {
      if (err instanceof ForwardSyntaxError) throw new TenderError('bad_input', err.message);
      throw err;
    }
    if (specs.local.length + specs.remote.length === 0) return { forwards: [], problems: [] };
    const rec = this.d.ledger.getNode(nodeId);
    if (!rec) throw new TenderError('not_found', `no node ${nodeId}`);
    const n = this.#nodeFor(rec.runId, nodeId);
    // A local node is this machine: its port is already here, and a listener on the same
    // port would take it from the job's own service. A free port is used instead.
    const local =
      rec.connection?.kind === 'local'
        ? specs.local.map((sp) => (sp.localPort === null ? { ...sp, localPort: 0 } : sp))
        : specs.local;
    const { opened, problems } = await this.#opening(n, () => n.set.openAll(local, specs.remote));
    for (const p of problems) this.#note(nodeId, `forward: ${p}`);
    await n.tokens.refresh();
    this.#changed(n.runId);
    return { forwards: opened.map((f) => this.#view(n, f)), problems };
  }

  /** This process's forwards, of one run or all, tokens read up to now. */
  async list(runId?: string): Promise<ForwardView[]> {
    const nodes = [...this.#nodes.values()].filter((n) => runId === undefined || n.runId === runId);
    await Promise.all(nodes.map((n) => n.tokens.refresh()));
    return nodes.flatMap((n) => n.set.list().map((f) => this.#view(n, f)));
  }

  /** Closes one forward; false when it was not open here. */
  async close(
    runId: string,
    nodeName: string,
    remotePort: number,
    direction: 'local' | 'remote',
  ): Promise<boolean> {
    const key = nodeKeyOf(this.d.ledger, runId, nodeName) ?? nodeName;
    const n = this.#nodes.get(key);
    if (!n) return false;
    const closed = await n.set.closeOne(direction, remotePort);
    if (n.set.isIdle) await this.#drop(key, n);
    if (closed) this.#changed(n.runId);
    return closed;
  }

  /** Closes every forward of a node and its connection: for the job's teardown, and when
   *  the node's lease goes. */
  async closeNode(nodeId: string): Promise<void> {
    const n = this.#nodes.get(nodeId);
    if (!n) return;
    await this.#drop(nodeId, n);
    this.#changed(n.runId);
  }

  /** Closes everything (the core closing): no listener outlives the process's core. */
  async closeAll(): Promise<void> {
    this.#isClosed = true;
    await Promise.allSettled([...this.#nodes].map(([id, n]) => this.#drop(id, n)));
  }

  /** Live log batches: a token a job prints shows on its forwards at once. */
  feed(records: readonly LogRecord[]): void {
    const byNode = new Map<string, LogRecord[]>();
    for (const r of records) {
      if (!this.#nodes.has(r.node)) continue;
      const list = byNode.get(r.node) ?? [];
      list.push(r);
      byNode.set(r.node, list);
    }
    for (const [nodeId, list] of byNode) {
      const n = this.#nodes.get(nodeId)!;
      void n.tokens.live(list).then((changed) => {
        if (changed && this.#nodes.get(nodeId) === n) this.#changed(n.runId);
      });
    }
  }

  #nodeFor(runId: string, nodeId: string | undefined): NodeForwards {
    if (this.#isClosed) throw new TenderError('conflict', 'Tender is closing');
    const rec = forwardTarget(this.d.ledger, runId, nodeId);
    const known = this.#nodes.get(rec.id);
    if (known) return known;
    const id = rec.id;
    const n: NodeForwards = {
      nodeId: id,
      runId: rec.runId,
      // The endpoint is read again for every connection: a node recovered onto a new lease
      // keeps its key and gets a new one.
      set: new ForwardSet(
        (signal) => {
          const now = this.d.ledger.getNode(id);
          if (!now?.connection)
            return Promise.reject(new Error(`${rec.logicalId} has no connection any more`));
          return this.d.connector(now.connection, CONNECT_DEADLINE_MS)(signal);
        },
        { onNote: (line) => this.#note(id, line) },
      ),
      tokens: new TokenWatch((fromSeq, limit) => this.d.readAgentLog(id, fromSeq, limit)),
      follow: new AgentLogFollow({
        shell: () => n.set.shell(),
        target: () => followTarget(this.d.ledger.getNode(id)),
        nextSeq: () => n.tokens.nextSeq,
        onRecords: (records) => {
          if (n.tokens.feed(records) && this.#nodes.get(id) === n) this.#changed(n.runId);
        },
      }),
    };
    this.#nodes.set(id, n);
    return n;
  }

  /** Runs an open; a node left with no forward after it (the open failed) is dropped. A
   *  node that cannot be reached is an infrastructure error naming it. */
  async #opening<T>(n: NodeForwards, open: () => Promise<T>): Promise<T> {
    try {
      return await open();
    } catch (err) {
      if (err instanceof TenderError) throw err;
      const hint = (err as { hint?: unknown }).hint;
      throw new TenderError(
        'infrastructure',
        `could not forward to ${n.nodeId}: ${(err as Error).message}`,
        typeof hint === 'string' ? hint : undefined,
      );
    } finally {
      if (n.set.isIdle) await this.#drop(n.nodeId, n);
    }
  }

  async #drop(nodeId: string, n: NodeForwards): Promise<void> {
    if (this.#nodes.get(nodeId) === n) this.#nodes.delete(nodeId);
    n.follow.stop();
    await n.set.close();
  }

  #note(nodeId: string, line: string): void {
    const key = `${nodeId}\n${line}`;
    const now = Date.now();
    if (now - (this.#noted.get(key) ?? -Infinity) < NOTE_QUIET_MS) return;
    if (this.#noted.size > 1_000) this.#noted.clear();
    this.#noted.set(key, now);
    this.d.note?.(nodeId, line);
  }

  #changed(runId: string): void {
    const views = [...this.#nodes]
      .filter(([, n]) => n.runId === runId)
      .flatMap(([, n]) => n.set.list().map((f) => this.#view(n, f)));
    this.d.onChange(runId, views);
  }

  #view(n: NodeForwards, f: Forward): ForwardView {
    const isLocal = f.direction === 'local';
    return {
      runId: n.runId,
      nodeId: n.nodeId,
      direction: f.direction,
      remotePort: f.remotePort,
      localPort: f.localPort,
      host: f.host,
      url: isLocal ? forwardUrl(f.localPort) : null,
      label: forwardLabel(f.remotePort),
      token: isLocal ? n.tokens.tokenFor(f.remotePort) : null,
    };
  }
}

/** Where a node's agent answers now, for a follow of its log; null without a joined agent. */
function followTarget(rec: NodeRecord | undefined): FollowTarget | null {
  if (!rec?.agent || !rec.connection) return null;
  return {
    runId: rec.runId,
    nodeId: rec.id,
    address: rec.agent.address,
    base: rec.claimedFrom?.agentSeq ?? 0,
    offset: rec.agentSeqOffset ?? 0,
  };
}
