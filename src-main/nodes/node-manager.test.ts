// The NodeManager runner against a fake Provider, a fake bootstrap session and a real SQLite
// ledger in a temp folder: commit before effect, failures fed back as messages, one mailbox
// in order, waitFor, stop, and the destroy retry backoff (on fake timers, not the clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HelloResult } from '../../src-agent/wire/protocol';
import type { Ledger } from '../ledger/ledger';
import {
  ProviderError,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type NodeEndpoint,
  type Provider,
} from '../providers/provider';
import { BootstrapError } from './bootstrap-errors';
import type { BootstrapCallbacks, BootstrapSession } from './bootstrap-session';
import { address, bareRecordIn, endpoint, lease, T0, tempLedgerWithRun } from './node-fixtures';
import { NodeManager, type NodeManagerDeps } from './node-manager';
import type { NodeRecord } from '../ledger/node-record';
import { destroyRetryDelay } from './transition';

const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) c();
});

const baseTiming: NodeManagerDeps['timing'] = {
  endpointPollMs: 1,
  endpointDeadlineMs: 60_000,
  destroyPollMs: 1,
  destroyConfirmDeadlineMs: 60_000,
};

const hello: HelloResult = {
  agentId: 'ag-1',
  version: '0.1.0',
  protocol: 1,
  pid: 4242,
  startedAt: T0,
  hostKey: null,
  lastSeq: 0,
  capabilities: { os: 'linux' },
  teardown: null,
};

/** What the NodeManager calls of a provider. */
type ManagedCalls = Pick<
  Provider,
  'kind' | 'createLease' | 'lookupEndpoint' | 'destroyLease' | 'isGone' | 'listLabeled'
>;

/** A provider that leases instantly on a folder, and can be told to fail. Every call is
 *  logged, with the node's stage as the ledger held it at that moment. */
class FakeProvider implements ManagedCalls {
  readonly kind = 'local';
  readonly calls: string[] = [];
  readonly listed = new Map<string, LeaseFacts>();
  create: (req: CreateLeaseRequest) => Promise<CreateLeaseResult> = (req) => {
    const l = { ...lease, label: req.label };
    this.listed.set(l.leaseId, l);
    return Promise.resolve({ lease: l, endpoint });
  };
  endpointOf: () => Promise<NodeEndpoint | null> = () => Promise.resolve(endpoint);
  /** The next this-many destroy calls fail. */
  destroyFailures = 0;
  /** Whether a destroyed lease stops being listed. */
  isDestroyHonoured = true;
  lookupSignals: AbortSignal[] = [];

  constructor(private readonly stageNow: () => string) {}

  createLease(req: CreateLeaseRequest): Promise<CreateLeaseResult> {
    this.calls.push(`createLease in ${this.stageNow()}`);
    return this.create(req);
  }
  lookupEndpoint(_lease: LeaseFacts, signal: AbortSignal): Promise<NodeEndpoint | null> {
    this.calls.push(`lookupEndpoint in ${this.stageNow()}`);
    this.lookupSignals.push(signal);
    return this.endpointOf();
  }
  destroyLease(handle: DestroyHandle): Promise<void> {
    this.calls.push(`destroyLease in ${this.stageNow()}`);
    if (this.destroyFailures > 0) {
      this.destroyFailures--;
      return Promise.reject(new ProviderError('HTTP 500 from the fake'));
    }
    if (this.isDestroyHonoured) this.listed.delete(handle.leaseId);
    return Promise.resolve();
  }
  isGone(handle: DestroyHandle): Promise<boolean> {
    return Promise.resolve(!this.listed.has(handle.leaseId));
  }
  listLabeled(prefix: string): Promise<LeaseFacts[]> {
    this.calls.push(`listLabeled in ${this.stageNow()}`);
    return Promise.resolve([...this.listed.values()].filter((l) => l.label.startsWith(prefix)));
  }
}

/** A bootstrap that joins at once and closes once the manager has recorded the join; or
 *  fails with `failure`. */
function fakeSession(cb: BootstrapCallbacks, failure?: BootstrapError): BootstrapSession {
  let converge!: () => void;
  const converged = new Promise<void>((r) => (converge = r));
  const session = {
    convergenceObserved: () => converge(),
    run: async () => {
      cb.observed('ssh_ready');
      if (failure) throw failure;
      cb.joined(hello, address);
      await converged;
    },
  };
  return session as unknown as BootstrapSession;
}

interface Rig {
  manager: NodeManager;
  provider: FakeProvider;
  ledger: Ledger;
  points: string[];
  logs: string[];
  changes: string[];
  /** The node's journal, as the messages that were committed. */
  journal(): string[];
}

function rig(
  opts: {
    record?: NodeRecord;
    deps?: Partial<NodeManagerDeps>;
    /** Sets the fake up; may return deps to override. */
    arrange?: (r: Rig) => Partial<NodeManagerDeps> | void;
    bootstrapFailure?: BootstrapError;
    onChange?: (rec: NodeRecord, m: NodeManager) => void;
  } = {},
): Rig {
  const rec = opts.record ?? bareRecordIn('new');
  const { ledger, close } = tempLedgerWithRun([rec]);
  cleanups.push(close);
  const stageNow = () => ledger.getNode(rec.id)?.stage ?? 'missing';
  const provider = new FakeProvider(stageNow);
  const points: string[] = [];
  const logs: string[] = [];
  const changes: string[] = [];
  const r: Rig = {
    provider,
    ledger,
    points,
    logs,
    changes,
    journal: () =>
      ledger
        .journal(rec.runId)
        .filter((e) => e.kind === 'node.step')
        .map((e) => String(e.data.msg)),
  } as Rig;
  const arranged = opts.arrange?.(r) ?? {};
  const manager: NodeManager = new NodeManager(rec, {
    ledger,
    provider: provider as ManagedCalls as Provider,
    now: () => T0,
    bootstrap: (_r, _e, _l, cb) => {
      provider.calls.push(`bootstrap in ${stageNow()}`);
      return fakeSession(cb, opts.bootstrapFailure);
    },
    log: (_r, stream, line) => logs.push(`${stream}: ${line}`),
    lastBootstrapSeq: () => 0,
    onChange: (r) => {
      changes.push(r.stage);
      opts.onChange?.(r, manager);
    },
    crashPoint: (name) => points.push(name),
    timing: baseTiming,
    ...opts.deps,
    ...arranged,
  });
  r.manager = manager;
  return r;
}

/** A clock a minute further on at every read: deadlines pass after a few looks. */
function minuteClock(): () => number {
  let t = T0;
  return () => (t += 60_000);
}

async function upAndRunning(r: Rig): Promise<NodeRecord> {
  r.manager.send({ type: 'Start' });
  return r.manager.waitFor((rec) => rec.stage === 'dormant' || rec.stage === 'failed');
}

describe('NodeManager: the ledger comes first', () => {
  it('commits each step before running its effects, from Start to a confirmed destroy', async () => {
    const r = rig();
    expect((await upAndRunning(r)).stage).toBe('dormant');
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    const gone = await r.manager.waitFor((rec) => rec.stage === 'destroyed');

    expect(r.provider.calls).toEqual([
      'createLease in lease_requested',
      'bootstrap in endpoint_known',
      'destroyLease in destroying',
    ]);
    expect(r.journal()).toEqual([
      'Start',
      'LeaseCreated',
      'BootstrapStarted',
      'BootstrapObserved',
      'AgentJoined',
      'BootstrapClosed',
      'HandoffComplete',
      'Destroy',
      'DestroyConfirmed',
    ]);
    expect(r.points).toEqual([
      'before-create-call',
      'after-create-call',
      'before-destroy-call',
      'after-destroy-call',
    ]);
    expect(r.ledger.getNode(gone.id)).toEqual(gone);
    expect(gone.destroyReason).toBe('run ended');
  });

  it('is ready only once the bootstrap session has closed after the join', async () => {
    const r = rig();
    r.manager.send({ type: 'Start' });
    const joined = await r.manager.waitFor((rec) => rec.stage === 'agent_joined');
    expect(joined.ready).toBe(false);
    expect((await r.manager.waitFor((rec) => rec.stage === 'dormant')).ready).toBe(true);
  });
});

describe('NodeManager: a failed effect comes back as the message that says so', () => {
  it.each<[string, (r: Rig) => Partial<NodeManagerDeps> | void, string]>([
    [
      'a create the provider refuses',
      (r) => (r.provider.create = () => Promise.reject(new ProviderError('no offers left'))),
      'lease: no offers left',
    ],
    [
      'a crash point that throws before the create call',
      () => ({
        crashPoint: (name) => {
          if (name === 'before-create-call') throw new Error('crashed before create');
        },
      }),
      'lease: crashed before create',
    ],
    [
      'an endpoint that can never become usable',
      (r) => {
        r.provider.create = (req) =>
          Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
        r.provider.endpointOf = () => Promise.reject(new ProviderError('exited', { fatal: true }));
      },
      'endpoint: exited',
    ],
    [
      'an endpoint that never comes within the deadline',
      (r) => {
        r.provider.create = (req) =>
          Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
        r.provider.endpointOf = () => Promise.resolve(null);
        return {
          now: minuteClock(), // each look is a minute later
          timing: { ...baseTiming, endpointDeadlineMs: 3 * 60_000 },
        };
      },
      'endpoint: no SSH endpoint within 3 min',
    ],
  ])('%s', async (_name, arrange, reason) => {
    const r = rig({ arrange });
    const rec = await upAndRunning(r);
    expect(rec).toMatchObject({ stage: 'failed', failedReason: reason, ready: false });
    expect(r.ledger.getNode(rec.id)?.failedReason).toBe(reason);
  });

  it('a failed bootstrap names its stage, and is logged', async () => {
    const r = rig({ bootstrapFailure: new BootstrapError('boot_check_failed', 'no Node.js') });
    const rec = await upAndRunning(r);
    expect(rec).toMatchObject({
      stage: 'failed',
      failedReason: 'bootstrap boot_check_failed: no Node.js',
    });
    expect(r.logs).toContain('stderr: bootstrap failed at boot_check_failed: no Node.js');
  });

  it('a create whose outcome is unknown is looked up by label, never created twice', async () => {
    const r = rig();
    r.provider.create = (req) => {
      r.provider.listed.set(lease.leaseId, { ...lease, label: req.label });
      return Promise.reject(new ProviderError('timeout', { outcomeUnknown: true }));
    };
    const rec = await upAndRunning(r);
    expect(rec.stage).toBe('dormant');
    expect(rec.lease?.leaseId).toBe(lease.leaseId);
    expect(r.provider.calls.filter((c) => c.startsWith('createLease'))).toHaveLength(1);
    expect(r.journal().slice(0, 2)).toEqual(['Start', 'LeaseFound']);
  });

  it.each<[string, (r: Rig) => Partial<NodeManagerDeps> | void, string]>([
    [
      'a destroy call that fails',
      (r) => void (r.provider.destroyFailures = 1),
      'HTTP 500 from the fake',
    ],
    [
      'a crash point that throws after the destroy call',
      () => ({
        crashPoint: (name) => {
          if (name === 'after-destroy-call') throw new Error('crashed after destroy');
        },
      }),
      'crashed after destroy',
    ],
    [
      'a lease still listed past the confirm deadline',
      (r) => {
        r.provider.isDestroyHonoured = false;
        return {
          now: minuteClock(),
          timing: { ...baseTiming, destroyConfirmDeadlineMs: 3 * 60_000 },
        };
      },
      'the provider still lists the lease after the destroy call',
    ],
  ])('%s: DestroyFailed, and the lease stays destroying', async (_name, arrange, error) => {
    const r = rig({ arrange });
    await upAndRunning(r);
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    const rec = await r.manager.waitFor((x) => x.destroyAttempts === 1);
    r.manager.stop(); // the retry is the backoff test's business
    expect(rec).toMatchObject({ stage: 'destroying', lastError: error });
    expect(r.journal().slice(-2)).toEqual(['Destroy', 'DestroyFailed']);
  });
});

describe('NodeManager: one mailbox, in order', () => {
  it('a message sent while one is processed waits its turn, and runs after its effects began', async () => {
    const seen: string[] = [];
    const r = rig({
      onChange: (rec, m) => {
        if (rec.stage !== 'lease_requested' || rec.destroyRequested) return;
        m.send({ type: 'Destroy', reason: 'operator' });
        // Not processed inside the step that is being committed.
        seen.push(`after send: destroyRequested ${m.record.destroyRequested}`);
      },
    });
    r.manager.send({ type: 'Start' });
    await r.manager.settled();
    seen.push(`settled: destroyRequested ${r.manager.record.destroyRequested}`);
    const rec = await r.manager.waitFor((x) => x.stage === 'destroyed');

    expect(seen).toEqual(['after send: destroyRequested false', 'settled: destroyRequested true']);
    // The create had begun before Destroy was processed: the lease it returns is destroyed,
    // and no look-up races the create still in flight.
    expect(r.provider.calls).toEqual([
      'createLease in lease_requested',
      'destroyLease in destroying',
    ]);
    expect(r.journal()).toEqual(['Start', 'Destroy', 'LeaseCreated', 'DestroyConfirmed']);
    expect(rec.destroyReason).toBe('operator');
  });

  it('messages are processed in the order sent, ignored ones committing nothing', async () => {
    const r = rig();
    r.manager.send({ type: 'GetStatus' });
    r.manager.send({ type: 'Destroy', reason: 'first' });
    r.manager.send({ type: 'Destroy', reason: 'second' });
    r.manager.send({ type: 'Start' });
    await r.manager.settled();
    expect(r.manager.record).toMatchObject({ stage: 'destroyed', destroyReason: 'first' });
    expect(r.journal()).toEqual(['Destroy']);
    expect(r.provider.calls).toEqual([]);
    expect(r.changes).toEqual(['destroyed']);
  });
});

describe('NodeManager: waitFor', () => {
  it('resolves at once with the current record when it already matches', async () => {
    const r = rig();
    const now = r.manager.record;
    await expect(r.manager.waitFor((x) => x.stage === 'new')).resolves.toBe(now);
  });

  it('resolves with the first record that matches, not a later one', async () => {
    const r = rig();
    const first = r.manager.waitFor((x) => x.stage === 'endpoint_known');
    const never = vi.fn();
    void r.manager.waitFor((x) => x.stage === 'failed').then(never);
    await upAndRunning(r);
    const rec = await first;
    expect(rec.stage).toBe('endpoint_known');
    expect(rec.connection).toEqual(endpoint);
    expect(r.manager.record.stage).toBe('dormant');
    await r.manager.settled();
    expect(never).not.toHaveBeenCalled();
  });
});

describe('NodeManager: stop', () => {
  it('stops acting: later messages commit nothing, and work in flight is aborted', async () => {
    const r = rig();
    r.provider.create = (req) =>
      Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
    r.provider.endpointOf = () => new Promise(() => {}); // a look that never answers
    r.manager.send({ type: 'Start' });
    await r.manager.waitFor((x) => x.stage === 'lease_created');
    expect(r.provider.lookupSignals).toHaveLength(1);
    const before = r.journal();

    r.manager.stop();
    r.manager.send({ type: 'Destroy', reason: 'too late' });
    await r.manager.settled();

    expect(r.provider.lookupSignals[0]!.aborted).toBe(true);
    expect(r.manager.record.stage).toBe('lease_created');
    expect(r.journal()).toEqual(before);
    expect(r.provider.calls).not.toContain('destroyLease in destroying');
  });
});

describe('NodeManager: destroy retries with backoff until confirmed', () => {
  it.each([1, 0.5])('retries after 2 s, 4 s, 8 s (× %s), then confirms', async (scale) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const r = rig({ deps: { timing: { ...baseTiming, destroyRetryScale: scale } } });
    await upAndRunning(r);
    r.provider.destroyFailures = 3;
    const destroys = () => r.provider.calls.filter((c) => c.startsWith('destroyLease')).length;

    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const rec = await r.manager.waitFor((x) => x.destroyAttempts === attempt);
      expect(rec.stage).toBe('destroying');
      expect(destroys()).toBe(attempt);
      const delay = destroyRetryDelay(attempt) * scale;
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(destroys()).toBe(attempt);
      await vi.advanceTimersByTimeAsync(1);
      expect(destroys()).toBe(attempt + 1);
    }
    await r.manager.waitFor((x) => x.stage === 'destroyed');
    expect(r.manager.record.stage).toBe('destroyed');
    expect(r.journal().filter((m) => m === 'DestroyFailed')).toHaveLength(3);
  });

  it('a retry waiting when the manager stops never runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const r = rig();
    await upAndRunning(r);
    r.provider.destroyFailures = 1;
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    await r.manager.waitFor((x) => x.destroyAttempts === 1);

    r.manager.stop();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(r.provider.calls.filter((c) => c.startsWith('destroyLease'))).toHaveLength(1);
    expect(r.manager.record.stage).toBe('destroying');
  });
});
