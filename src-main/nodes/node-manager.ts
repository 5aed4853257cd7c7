import { type LeaseFacts, type NodeEndpoint, ProviderError } from '../providers/provider';
import type { Provider } from '../providers/provider';
import type { Ledger } from '../ledger/ledger';
import { BootstrapError } from './bootstrap-errors';
import type { BootstrapCallbacks, BootstrapSession } from './bootstrap-session';
import type { NodeEffect, NodeMsg } from './messages';
import type { NodeRecord } from '../ledger/node-record';
import { resume } from './resume';
import { transition } from './transition';
import type { NodePull } from '../contract';
import { DEFAULT_PULL_STALL_MS, PullWatch } from './pull-watch';

export interface NodeManagerDeps {
  ledger: Ledger;
  provider: Provider;
  now: () => number;
  /** Builds the bootstrap session for this node (the core knows keys, bundle, layout). */
  bootstrap(
    rec: NodeRecord,
    endpoint: NodeEndpoint,
    lease: LeaseFacts,
    cb: BootstrapCallbacks,
  ): BootstrapSession;
  log(rec: NodeRecord, stream: 'stdout' | 'stderr' | 'info', line: string): void;
  lastBootstrapSeq(rec: NodeRecord): number;
  onChange(rec: NodeRecord): void;
  /** A secret the node's pool names by variable (its image's registry login), read when a
   *  create sends it; never stored. */
  secret?(name: string): string | undefined;
  /** Test-only crash points (see core/crash-points.ts). */
  crashPoint(name: string): void;
  /** The provider said something new of a lease that is not usable yet (pull-watch.ts). */
  onPull?(rec: NodeRecord, pull: NodePull): void;
  timing: {
    endpointPollMs: number;
    /** The whole wait for a lease that reports no image pull (PullRules.silentMs). */
    endpointDeadlineMs: number;
    /** A pull making no progress for this long is given up (a pool's `pull_stall` wins). */
    pullStallMs?: number;
    destroyPollMs: number;
    destroyConfirmDeadlineMs: number;
    /** Multiplies the FSM's destroy retry backoff (tests run it faster). */
    destroyRetryScale?: number;
  };
}

type Waiter = { pred: (r: NodeRecord) => boolean; resolve: (r: NodeRecord) => void };

/** Owns one node: a mailbox, the pure transition, and the effects. Each
 *  message's new record is committed with a journal row before its effects run. */
export class NodeManager {
  private queue: NodeMsg[] = [];
  private draining = false;
  private stopped = false;
  private work = new AbortController();
  private session: BootstrapSession | null = null;
  private sessionCounter = 0;
  private createInFlight = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiters: Waiter[] = [];
  private watch: PullWatch | null = null;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};

  constructor(
    private rec: NodeRecord,
    private readonly deps: NodeManagerDeps,
  ) {}

  get record(): NodeRecord {
    return this.rec;
  }

  /** The lease's destroy is expected (Provider.armDestroy): a hint, never an effect. */
  expectDestroy(): void {
    if (this.rec.lease) this.deps.provider.armDestroy?.(this.rec.lease.destroyHandle);
  }

  /** While the lease provisions: what its provider last said of it, and when it is given up. */
  get pull(): NodePull | null {
    return this.rec.stage === 'lease_created' ? (this.watch?.snapshot() ?? null) : null;
  }

  send(msg: NodeMsg): void {
    if (this.stopped) return;
    this.queue.push(msg);
    if (!this.draining) this.drain();
  }

  /** Re-runs what a restart interrupted (see resume.ts). */
  resume(): void {
    for (const effect of resume(this.rec)) this.runEffect(effect);
  }

  /** Resolves with the first record (now or later) that satisfies `pred`. */
  waitFor(pred: (r: NodeRecord) => boolean): Promise<NodeRecord> {
    if (pred(this.rec)) return Promise.resolve(this.rec);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  /** Stops acting for this node without touching the lease (detach, shutdown). */
  stop(): void {
    this.stopped = true;
    this.queue = [];
    this.work.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves once the mailbox is empty (tests, orderly shutdown). */
  settled(): Promise<void> {
    return this.idle;
  }

  private drain(): void {
    this.draining = true;
    this.idle = new Promise((r) => (this.markIdle = r));
    try {
      while (this.queue.length > 0 && !this.stopped) this.process(this.queue.shift()!);
    } finally {
      this.draining = false;
      this.markIdle();
    }
  }

  private process(msg: NodeMsg): void {
    if (msg.type === 'Destroy' && this.isDestroyedElsewhere()) return;
    const now = this.deps.now();
    const step = transition(this.rec, msg, now);
    if (step.ignored) return;
    const prev = this.rec;
    if (step.record !== prev) {
      this.deps.ledger.commitNodeStep(prev, step.record, msg.type, now, describe(msg));
      this.take(step.record);
    }
    for (const effect of step.effects) this.runEffect(effect);
  }

  /** Another manager of this node (a teardown's, the reconciler's retry) may have destroyed
   *  its lease, confirmed, while this one held an older record (a kept node's job): the
   *  ledger is the truth, so this one takes its record and never destroys the lease twice. */
  private isDestroyedElsewhere(): boolean {
    if (this.rec.stage === 'destroyed') return false;
    const row = this.deps.ledger.getNode(this.rec.id);
    if (row?.stage !== 'destroyed') return false;
    this.take(row);
    return true;
  }

  private take(rec: NodeRecord): void {
    this.rec = rec;
    this.deps.onChange(rec);
    this.waiters = this.waiters.filter((w) => (w.pred(rec) ? (w.resolve(rec), false) : true));
  }

  private runEffect(effect: NodeEffect): void {
    switch (effect.type) {
      case 'CreateLease':
        return void this.createLease(effect.lookupFirst); // the provider's own check
      case 'FindLease':
        if (!this.createInFlight) void this.findLease();
        return;
      case 'LookupEndpoint':
        return void this.lookupEndpoint(effect.lease, this.work.signal);
      case 'StartBootstrap':
        return void this.startBootstrap(effect.endpoint, effect.lease, this.work.signal);
      case 'NotifyConvergence':
        return this.session?.convergenceObserved();
      case 'CompleteHandoff':
        return this.send({ type: 'HandoffComplete' });
      case 'CancelWork':
        this.work.abort();
        this.work = new AbortController();
        return;
      case 'DestroyLease':
        return this.later(
          effect.delayMs * (this.deps.timing.destroyRetryScale ?? 1),
          () => void this.destroyLease(effect.handle),
        );
      case 'Reply':
        return; // queries are answered by reading `record`
    }
  }

  private async createLease(isResumed: boolean): Promise<void> {
    const { provider } = this.deps;
    const label = this.rec.label;
    this.createInFlight = true;
    const signal = new AbortController().signal; // a create is never abandoned half-way
    try {
      // A crash between the call and its commit may have left a lease behind (a resume):
      // the provider's create is idempotent per label, so it returns that lease rather than
      // a second one, and the label is listed once, by the provider, not here as well.
      this.deps.crashPoint('before-create-call');
      const result = await provider.createLease(
        {
          label,
          runId: this.rec.runId,
          logicalId: this.rec.logicalId,
          shape: this.rec.desired.shape,
          ...(this.rec.desired.constraints ? { constraints: this.rec.desired.constraints } : {}),
          ...(this.rec.desired.openPorts ? { openPorts: this.rec.desired.openPorts } : {}),
          ...(this.rec.desired.maxDurationMs !== undefined
            ? { maxDurationMs: this.rec.desired.maxDurationMs }
            : {}),
          ...(isResumed ? { resumed: true } : {}),
          secret: (name) => this.deps.secret?.(name),
          note: (line) => this.deps.log(this.rec, 'info', line),
        },
        signal,
      );
      this.deps.crashPoint('after-create-call');
      this.send({ type: 'LeaseCreated', lease: result.lease, endpoint: result.endpoint });
    } catch (err) {
      if (err instanceof ProviderError && err.opts.outcomeUnknown) {
        const found = await this.findByLabel(label, signal).catch(() => null);
        if (found) return this.send({ type: 'LeaseFound', lease: found, endpoint: null });
      }
      this.send({ type: 'LeaseFailed', reason: (err as Error).message });
    } finally {
      this.createInFlight = false;
    }
  }

  private async findLease(): Promise<void> {
    try {
      const found = await this.findByLabel(this.rec.label, new AbortController().signal);
      this.send(
        found ? { type: 'LeaseFound', lease: found, endpoint: null } : { type: 'LeaseNotFound' },
      );
    } catch (err) {
      this.deps.log(
        this.rec,
        'stderr',
        `looking up lease ${this.rec.label} failed: ${(err as Error).message}`,
      );
    }
  }

  private async findByLabel(label: string, signal: AbortSignal): Promise<LeaseFacts | null> {
    const list = await this.deps.provider.listLabeled(label, signal);
    return list.find((l) => l.label === label) ?? null;
  }

  private async lookupEndpoint(lease: LeaseFacts, signal: AbortSignal): Promise<void> {
    const { timing, provider, now } = this.deps;
    // Every lease is waited for the endpoint deadline; one whose image pull keeps moving is
    // waited for as long as it moves (the stall rule, pull-watch.ts).
    const watch = new PullWatch(now(), {
      silentMs: timing.endpointDeadlineMs,
      stallMs: this.rec.desired.pullStallMs ?? timing.pullStallMs ?? DEFAULT_PULL_STALL_MS,
    });
    this.watch = watch;
    // The provider's own words while the lease provisions, logged once per change.
    let said: string | null = null;
    const report = (status: string, isImagePull = false) => {
      if (signal.aborted || this.watch !== watch) return;
      watch.observe({ line: status, isImagePull }, now());
      if (status === said) return;
      said = status;
      this.deps.log(this.rec, 'info', `${provider.kind}: ${status}`);
      const pull = watch.snapshot();
      if (pull) this.deps.onPull?.(this.rec, pull);
    };
    while (!signal.aborted) {
      try {
        const endpoint = await provider.lookupEndpoint(lease, signal, report);
        if (endpoint) return this.send({ type: 'EndpointKnown', endpoint });
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ProviderError && err.opts.fatal)
          return this.send({
            type: 'EndpointFailed',
            reason: err.message,
            ...(err.opts.notTheHost ? { notTheHost: true } : {}),
          });
        this.deps.log(this.rec, 'stderr', `endpoint lookup: ${(err as Error).message}`);
      }
      const verdict = watch.verdict(now());
      if (verdict.kind === 'give_up')
        return this.send({ type: 'EndpointFailed', reason: verdict.reason });
      await this.sleep(timing.endpointPollMs, signal);
    }
  }

  private async startBootstrap(
    endpoint: NodeEndpoint,
    lease: LeaseFacts,
    signal: AbortSignal,
  ): Promise<void> {
    const sessionId = ++this.sessionCounter;
    const session = this.deps.bootstrap(this.rec, endpoint, lease, {
      observed: (stage) => {
        if (this.session !== session) return;
        this.send({
          type: 'BootstrapObserved',
          stage,
          lastStdoutSeq: this.deps.lastBootstrapSeq(this.rec),
        });
      },
      log: (stream, line) => this.deps.log(this.rec, stream, line),
      joined: (hello, address) => {
        if (this.session !== session) return;
        this.send({
          type: 'AgentJoined',
          agent: {
            agentId: hello.agentId,
            version: hello.version,
            capabilities: hello.capabilities,
            hostKey: hello.hostKey,
            address,
          },
        });
      },
    });
    this.session = session;
    this.send({ type: 'BootstrapStarted', sessionId });
    try {
      await session.run(signal);
      if (this.session === session) this.send({ type: 'BootstrapClosed' });
    } catch (err) {
      if (this.session !== session || signal.aborted) return;
      const stage = err instanceof BootstrapError ? err.stage : 'stream_error';
      const reason = err instanceof BootstrapError ? err.reason : (err as Error).message;
      this.deps.log(this.rec, 'stderr', `bootstrap failed at ${stage}: ${reason}`);
      this.send({ type: 'BootstrapFailed', stage, reason });
    } finally {
      if (this.session === session) this.session = null;
    }
  }

  private async destroyLease(handle: LeaseFacts['destroyHandle']): Promise<void> {
    const { provider, timing, now } = this.deps;
    const signal = new AbortController().signal; // destroy is never abandoned by CancelWork
    try {
      this.deps.crashPoint('before-destroy-call');
      const answer = await provider.destroyLease(handle, signal);
      this.deps.crashPoint('after-destroy-call');
      // Destroyed only once the provider says the lease is gone: until then it may bill.
      const deadline = now() + timing.destroyConfirmDeadlineMs;
      while (answer !== 'gone' && !(await provider.isGone(handle, signal))) {
        if (now() >= deadline)
          throw new Error('the provider still lists the lease after the destroy call');
        await this.sleep(timing.destroyPollMs, signal);
      }
      this.send({ type: 'DestroyConfirmed' });
    } catch (err) {
      this.send({ type: 'DestroyFailed', error: (err as Error).message });
    }
  }

  private later(ms: number, fn: () => void): void {
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** Journal detail for a message; never anything secret (messages carry none). */
function describe(msg: NodeMsg): Record<string, unknown> {
  switch (msg.type) {
    case 'LeaseCreated':
    case 'LeaseFound':
      return { leaseId: msg.lease.leaseId };
    case 'LeaseFailed':
    case 'EndpointFailed':
      return { reason: msg.reason };
    case 'BootstrapObserved':
      return { stage: msg.stage };
    case 'BootstrapFailed':
      return { stage: msg.stage, reason: msg.reason };
    case 'AgentJoined':
      return { agentId: msg.agent.agentId };
    case 'Destroy':
      return { reason: msg.reason };
    case 'DestroyFailed':
      return { error: msg.error };
    case 'Replace':
      return { label: msg.label, excludeMachine: msg.excludeMachine };
    case 'LeaseLost':
      return { reason: msg.reason };
    default:
      return {};
  }
}
