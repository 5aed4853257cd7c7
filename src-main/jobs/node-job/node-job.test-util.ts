// Doubles for NodeJob's tests: a node manager that boots and destroys leases at once, and
// nodes whose agent link and shells answer from memory (a checkpoint pull is a real
// marker + tar + manifest stream, a restore a real tar read). Each pull waits at a gate
// the test opens, so a test can place a node's loss before, during or after a pull.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PhaseState } from '../../../src-agent/wire/protocol';
import { STREAM_MARKER } from '../../../src-agent/wire/marker';
import { createTarReader } from '../../../src-agent/wire/tar';
import { createTarWriter } from '../../../src-agent/wire/tar/writer';
import { JobSpec, type JobSpecInput } from '../../contract';
import { Datastream } from '../../datastream/datastream';
import type { NodeRecord } from '../../ledger/node-record';
import type { AgentLinkDeps } from '../../nodes/agent-link';
import { address, bareRecordIn, lease, tempLedgerWithRun } from '../../nodes/node-fixtures';
import type { NodeManager } from '../../nodes/node-manager';
import type { ExecChannel, NodeShell } from '../../transport/node-shell';
import { initialJobState } from '../fsm/job-fsm';
import type { JobLink } from './job-link';
import type { NodeJobDeps } from './node-job-deps';

/** One machine: its workspace files, what ran on it, and its run phase. */
export class FakeNode {
  readonly files = new Map<string, string>();
  /** `pull` (checkpoints), `outputs` and `restore`, in the order they reached the node. */
  readonly transfers: string[] = [];
  readonly started: string[] = [];
  private exitRun: ((st: PhaseState) => void) | null = null;

  constructor(readonly label: string) {}

  start(phase: string, report: (st: PhaseState) => void): void {
    this.started.push(phase);
    const st = { phase, state: 'running' } as PhaseState;
    report(st);
    this.exitRun = (end) => report(end);
  }

  /** The job's run phase exits with `code`. */
  exit(code: number, says: Partial<PhaseState> = {}): void {
    const end = { phase: 'run', state: 'exited', code, signal: null, ...says };
    this.exitRun?.(end as PhaseState);
    this.exitRun = null;
  }
}

/** A checkpoint pull waiting at the gate: `open()` lets it answer. */
export interface HeldPull {
  node: FakeNode;
  open(): void;
}

export class FakeWorld {
  readonly nodes: FakeNode[] = [];
  readonly gone = new Set<string>();
  /** Pulls waiting at the gate, oldest first; with `openGate` they answer at once. */
  readonly held: HeldPull[] = [];
  openGate = false;
  /** Each request the agent got, with the requests still unanswered when it was sent. */
  readonly requests: { op: string; unanswered: string[] }[] = [];
  readonly unanswered: string[] = [];
  /** Configure says the phase states, as this app's agent does; false: an agent from
   *  before that (the app asks `status` after). */
  configureSaysPhases = true;
  /** False: the host setup's status says an entry still runs. */
  hostSetupDrained = true;
  private readonly links: { node: FakeNode; deps: AgentLinkDeps; link: FakeLink }[] = [];
  private pullWaiters: ((p: HeldPull) => void)[] = [];

  node(label: string): FakeNode {
    let n = this.nodes.find((x) => x.label === label);
    if (!n) this.nodes.push((n = new FakeNode(label)));
    return n;
  }

  openLink(label: string, deps: AgentLinkDeps): JobLink {
    const link = new FakeLink(this, this.node(label));
    this.links.push({ node: this.node(label), deps, link });
    link.deps = deps;
    queueMicrotask(() => deps.onState('connected', ''));
    return link;
  }

  /** The machine goes away: its lease is gone and its links report the loss. */
  lose(label: string): void {
    this.gone.add(label);
    for (const l of this.links.filter((x) => x.node.label === label && !x.link.isClosed))
      l.deps.onState('lost', 'connection reset');
  }

  /** Resolves with the next pull that reaches a node's gate. */
  nextPull(): Promise<HeldPull> {
    const waiting = this.held.shift();
    if (waiting) return Promise.resolve(waiting);
    return new Promise((r) => this.pullWaiters.push(r));
  }

  gate(node: FakeNode): Promise<void> {
    if (this.openGate) return Promise.resolve();
    return new Promise((open) => {
      const held = { node, open };
      const waiter = this.pullWaiters.shift();
      if (waiter) waiter(held);
      else this.held.push(held);
    });
  }
}

class FakeLink implements JobLink {
  deps!: AgentLinkDeps;
  isClosed = false;

  constructor(
    private readonly world: FakeWorld,
    private readonly node: FakeNode,
  ) {}

  request: JobLink['request'] = async (op, params) => {
    if (this.isClosed) throw new Error('the link was closed');
    const { requests, unanswered } = this.world;
    requests.push({ op, unanswered: [...unanswered] });
    unanswered.push(op);
    await new Promise((r) => setImmediate(r)); // the round trip
    unanswered.splice(unanswered.indexOf(op), 1);
    return this.answer(op, params);
  };

  private answer: JobLink['request'] = async (op, params) => {
    const p = params as { phase?: string };
    switch (op) {
      case 'configure':
        return (this.world.configureSaysPhases ? { phases: {} } : {}) as never;
      case 'outputs.glance': // files there: the collection pulls them
        return { files: 1, bytes: 1, dirs: [], moreDirs: false, missing: [], refused: [] } as never;
      case 'host_setup.status':
        return this.world.hostSetupDrained
          ? ({ drained: true, entries: [] } as never)
          : ({ drained: false, entries: [{ id: 1, state: 'running', script: 'x' }] } as never);
      case 'status':
        return { phases: {}, lastSeq: 0 } as never;
      case 'start':
        this.node.start(p.phase!, (st) => !this.isClosed && this.deps.onPhase(st));
        return {} as never;
      default:
        return {} as never;
    }
  };

  bulkShell: JobLink['bulkShell'] = async () => {
    if (this.isClosed) throw new Error('the link was closed');
    return new FakeShell(this.world, this.node, () => this.isClosed);
  };

  withBulkShell: JobLink['withBulkShell'] = async (work) => {
    const shell = await this.bulkShell();
    try {
      return await work(shell);
    } finally {
      await shell.close();
    }
  };

  helloWithin: JobLink['helloWithin'] = async () => null;

  close(): void {
    this.isClosed = true;
  }
}

class FakeShell implements NodeShell {
  readonly description = 'fake';

  constructor(
    private readonly world: FakeWorld,
    private readonly node: FakeNode,
    private readonly isLinkClosed: () => boolean,
  ) {}

  exec(command: string): ExecChannel {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stderr.end();
    const exit = command.includes('pack-outputs')
      ? this.pack(command, stdin, stdout)
      : this.restore(command, stdin, stdout);
    return { stdin, stdout, stderr, exit, close: () => stdout.destroy() };
  }

  /** `pack-outputs`: what the node holds under the declared paths, after the gate. */
  private async pack(command: string, stdin: PassThrough, stdout: PassThrough) {
    const spec = JSON.parse(
      Buffer.from(/--spec (\S+)/.exec(command)![1]!, 'base64url').toString(),
    ) as { paths: string[] };
    // Only checkpoint pulls wait at the gate; the outputs' pull beside them does not.
    const isCheckpointPull = spec.paths.length > 0;
    this.node.transfers.push(isCheckpointPull ? 'pull' : 'outputs');
    stdin.resume();
    if (isCheckpointPull) await this.world.gate(this.node);
    if (this.isLinkClosed()) {
      stdout.end();
      return { code: null, signal: 'connection lost' };
    }
    const files = [...this.node.files].filter(([p]) => spec.paths.some((d) => p.startsWith(d)));
    stdout.write(STREAM_MARKER);
    const tar = createTarWriter();
    const sent = pipeline(tar, stdout);
    const manifest = { files: [] as object[], missing: [], refused: [] };
    for (const [path, body] of files) {
      const b = Buffer.from(body);
      await tar.addFile(path, { size: b.length, mode: 0o644 }, b);
      manifest.files.push({ path, size: b.length, sha256: sha(b), mtimeMs: 1 });
    }
    const m = Buffer.from(JSON.stringify(manifest));
    await tar.addFile('.tender/manifest.json', { size: m.length, mode: 0o644 }, m);
    await tar.finish();
    await sent;
    return { code: 0, signal: null };
  }

  /** `mkdir -p …/workspace/<path> && tar -x -C …`: the tar's files into the workspace. */
  private async restore(command: string, stdin: PassThrough, stdout: PassThrough) {
    this.node.transfers.push('restore');
    const path = /workspace\/'?([^' ]+?)'? &&/.exec(command)![1]!;
    const reader = createTarReader(async ({ header, body }) => {
      const parts: Buffer[] = [];
      for await (const c of body) parts.push(c as Buffer);
      if (header.type === 'file')
        this.node.files.set(
          `${path}/${header.path.replace(/^\.\//, '')}`,
          Buffer.concat(parts).toString(),
        );
    });
    await pipeline(stdin, reader);
    stdout.end();
    return { code: 0, signal: null };
  }

  async close(): Promise<void> {}
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A node manager whose leases boot and go at once, each on a machine of the world. */
export class FakeManager {
  record: NodeRecord;
  readonly sent: string[] = [];
  /** The labels whose destroy was said to be coming (NodeManager.expectDestroy). */
  readonly destroysExpected: string[] = [];
  private waiters: { pred: (r: NodeRecord) => boolean; resolve: (r: NodeRecord) => void }[] = [];

  constructor(private readonly dir: string) {
    this.record = bareRecordIn('new');
  }

  send(msg: { type: string; label?: string }): void {
    this.sent.push(msg.type);
    const r = this.record;
    if (msg.type === 'Start') {
      const connection = { kind: 'local' as const, dir: this.dir };
      const agent = {
        agentId: `a-${r.label}`,
        version: 't',
        joinedAt: 0,
        handedOffAt: null,
        capabilities: {},
        address,
      };
      this.set({ ...r, stage: 'dormant', lease: { ...lease, label: r.label }, connection, agent });
    } else if (msg.type === 'Destroy') this.set({ ...r, stage: 'destroyed' });
    else if (msg.type === 'Replace')
      this.set({ ...r, stage: 'new', label: msg.label!, attempt: r.attempt + 1, agent: null });
  }

  resume(): void {}

  expectDestroy(): void {
    this.destroysExpected.push(this.record.label);
  }

  waitFor(pred: (r: NodeRecord) => boolean): Promise<NodeRecord> {
    if (pred(this.record)) return Promise.resolve(this.record);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  private set(r: NodeRecord): void {
    this.record = r;
    for (const w of this.waiters.filter((x) => x.pred(r))) w.resolve(r);
    this.waiters = this.waiters.filter((x) => !x.pred(r));
  }
}

/** A NodeJob's deps over the doubles: a real ledger and datastream in a temp folder. */
export function fakeDeps(job: JobSpecInput & { checkpoint_every_s?: number }) {
  const tmp = mkdtempSync(join(tmpdir(), 'tender-node-job-'));
  const world = new FakeWorld();
  const manager = new FakeManager(tmp);
  const { ledger, close } = tempLedgerWithRun([manager.record]);
  const lines: string[] = [];
  const datastream = new Datastream(join(tmp, 'logs'), (batch) => {
    for (const r of batch) if (r.channel === 'events') lines.push(r.line);
  });
  /** The job's event lines so far. */
  const events = () => {
    datastream.flush();
    return [...lines];
  };
  const spec = { ...JobSpec.parse({ ...job, checkpoint_every_s: 5 }), ...job } as JobSpec;
  const outputsDir = join(tmp, 'runs', 'r', 'node-0', 'outputs');
  const deps: NodeJobDeps = {
    ledger,
    datastream,
    manager: manager as unknown as NodeManager,
    job: spec,
    agentJobId: 'j-test',
    keep: false,
    freshSetup: false,
    outputsDir,
    hashCacheFile: join(tmp, 'hashes'),
    manifestMemory: { get: () => null, set: () => {} } as never,
    connect: () => () => Promise.reject(new Error('no shell outside the link')),
    openLink: (d) => world.openLink(manager.record.label, d),
    workspacePlan: async () => null,
    isLeaseGone: async (rec) => world.gone.has(rec.label),
    leaseInterruption: () => null,
    onChange: () => {},
    crashPoint: () => {},
    now: () => Date.now(),
    cancelGraceMs: 100,
    teardownMaxAttempts: 3,
    maxBootAttempts: 1,
    nextLabel: (n) => `tender-i-r-node-0-a${n}`,
    recordBootFailure: () => {},
    recordLostHost: () => {},
    deadMan: null,
  };
  const state = initialJobState({
    hasWorkspace: true, // a job file always has one: the folder holding it
    hasSetup: false,
    maxRestarts: job.recovery?.max_restarts ?? 0,
    recoverOn: job.recovery?.on ?? [],
  });
  const cleanup = () => {
    datastream.close();
    close();
    rmSync(tmp, { recursive: true, force: true });
  };
  return { deps, state, world, manager, events, outputsDir, cleanup };
}
