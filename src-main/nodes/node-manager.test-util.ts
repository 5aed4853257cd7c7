// Shared rig of the NodeManager's unit tests (node-manager-*.test.ts): the runner against a
// fake Provider, a fake bootstrap session and a real SQLite ledger in a temp folder. Each
// test file registers `afterEach(cleanUpRigs)`. Not part of any bundle.
import { vi } from 'vitest';
import type { HelloResult } from '../../src-agent/wire/protocol';
import type { Ledger } from '../ledger/ledger';
import {
  ProviderError,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type LeaseReporter,
  type NodeEndpoint,
  type Provider,
} from '../providers/provider';
import type { BootstrapError } from './bootstrap-errors';
import type { BootstrapCallbacks, BootstrapSession } from './bootstrap-session';
import { address, bareRecordIn, endpoint, lease, T0, tempLedgerWithRun } from './node-fixtures';
import { NodeManager, type NodeManagerDeps } from './node-manager';
import type { NodeRecord } from '../ledger/node-record';

const cleanups: (() => void)[] = [];

/** Puts the real timers back and closes every rig's ledger. */
export function cleanUpRigs(): void {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) c();
}

export const baseTiming: NodeManagerDeps['timing'] = {
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
  /** `report`: the provider's status line while the lease provisions. */
  endpointOf: (report?: LeaseReporter) => Promise<NodeEndpoint | null> = () =>
    Promise.resolve(endpoint);
  /** The next this-many destroy calls fail. */
  destroyFailures = 0;
  /** Whether a destroyed lease stops being listed. */
  isDestroyHonoured = true;
  /** The destroy's own answer confirms the lease gone (the ssh provider's). */
  destroyAnswersGone = false;
  isGoneAsked = 0;
  lookupSignals: AbortSignal[] = [];

  constructor(private readonly stageNow: () => string) {}

  createLease(req: CreateLeaseRequest): Promise<CreateLeaseResult> {
    this.calls.push(`createLease in ${this.stageNow()}`);
    return this.create(req);
  }
  lookupEndpoint(
    _lease: LeaseFacts,
    signal: AbortSignal,
    report?: LeaseReporter,
  ): Promise<NodeEndpoint | null> {
    this.calls.push(`lookupEndpoint in ${this.stageNow()}`);
    this.lookupSignals.push(signal);
    return this.endpointOf(report);
  }
  destroyLease(handle: DestroyHandle): Promise<void | 'gone'> {
    this.calls.push(`destroyLease in ${this.stageNow()}`);
    if (this.destroyFailures > 0) {
      this.destroyFailures--;
      return Promise.reject(new ProviderError('HTTP 500 from the fake'));
    }
    if (this.isDestroyHonoured) this.listed.delete(handle.leaseId);
    return Promise.resolve(this.destroyAnswersGone && this.isDestroyHonoured ? 'gone' : undefined);
  }
  isGone(handle: DestroyHandle): Promise<boolean> {
    this.isGoneAsked++;
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

export interface Rig {
  manager: NodeManager;
  provider: FakeProvider;
  ledger: Ledger;
  points: string[];
  logs: string[];
  changes: string[];
  /** The node's journal, as the messages that were committed. */
  journal(): string[];
}

export function rig(
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
export function minuteClock(): () => number {
  let t = T0;
  return () => (t += 60_000);
}

export async function upAndRunning(r: Rig): Promise<NodeRecord> {
  r.manager.send({ type: 'Start' });
  return r.manager.waitFor((rec) => rec.stage === 'dormant' || rec.stage === 'failed');
}
