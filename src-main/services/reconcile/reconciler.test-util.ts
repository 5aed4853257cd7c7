// Shared fakes of the Reconciler's unit tests (reconciler-*.test.ts): providers whose
// listings the test sets, the slice of the ledger the reconciler uses, held in memory, and
// a reconciler over both on a clock the test moves. Not part of any bundle.
import { labelPrefix } from '../../base/ids';
import type { LeaseState, PoolSpec } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import { newNodeRecord, type NodeRecord } from '../../ledger/node-record';
import type { LeaseInterruptionFacts } from '../../ledger/leases';
import type { JournalEvent, LeaseRow } from '../../ledger/rows';
import type { NodeMsg } from '../../nodes/messages';
import type { NodeShape } from '../../providers/pool-shapes';
import type {
  CreateLeaseResult,
  DestroyHandle,
  LeaseCondition,
  LeaseFacts,
  NodeEndpoint,
  Provider,
} from '../../providers/provider';
import { Reconciler, type ReconcilerDeps } from './reconciler';

const INSTALL = 'inst';
export const PREFIX = labelPrefix(INSTALL);
export const T0 = 1_000_000_000;

export const label = (name: string) => `${PREFIX}${name}`;

export function factsOf(provider: string, lbl: string): LeaseFacts {
  const leaseId = `${provider}:${lbl}`;
  return {
    provider,
    leaseId,
    contractId: lbl,
    label: lbl,
    destroyHandle: { provider, leaseId, contractId: lbl },
    pricePerHour: null,
    metadata: {},
  };
}

/** A provider whose listing and gone-answers the test sets, counting each call. */
export class FakeProvider implements Provider {
  listed: LeaseFacts[] = [];
  gone = true;
  listError: Error | null = null;
  configured = true;
  /** While set, listLabeled waits for it (a listing in flight). */
  gate: Promise<void> | null = null;
  listCalls = 0;
  isGoneCalls = 0;
  readonly prefixesAsked: string[] = [];

  constructor(
    readonly kind: string,
    readonly bills = false,
  ) {}

  isConfigured(): boolean {
    return this.configured;
  }

  list(...names: string[]): this {
    this.listed = names.map((n) => factsOf(this.kind, label(n)));
    return this;
  }

  /** The listed lease `name` shows this condition (what a provider's listing tells). */
  withCondition(name: string, condition: LeaseCondition): this {
    const f = this.listed.find((x) => x.label === label(name));
    if (!f) throw new Error(`${name} is not listed`);
    f.condition = condition;
    return this;
  }

  async listLabeled(prefix: string): Promise<LeaseFacts[]> {
    this.listCalls++;
    this.prefixesAsked.push(prefix);
    if (this.gate) await this.gate;
    if (this.listError) throw this.listError;
    return this.listed.map((f) => ({ ...f }));
  }

  async isGone(_handle: DestroyHandle): Promise<boolean> {
    this.isGoneCalls++;
    return this.gone;
  }

  shapeNodes(_pool: PoolSpec): NodeShape[] {
    throw new Error('not used by the reconciler');
  }
  async createLease(): Promise<CreateLeaseResult> {
    throw new Error('not used by the reconciler');
  }
  async lookupEndpoint(): Promise<NodeEndpoint | null> {
    throw new Error('not used by the reconciler');
  }
  async destroyLease(): Promise<void> {
    throw new Error('not used by the reconciler');
  }
}

/** The slice of the ledger the reconciler reads and appends to, in memory. */
class MemoryLedger implements Pick<
  Ledger,
  'installId' | 'listLeases' | 'getNode' | 'append' | 'setInterruption'
> {
  readonly leases: LeaseRow[] = [];
  readonly nodes = new Map<string, NodeRecord>();
  readonly journal: Omit<JournalEvent, 'seq'>[] = [];

  installId(): string {
    return INSTALL;
  }
  listLeases(states?: readonly LeaseState[]): LeaseRow[] {
    return this.leases.filter((l) => !states || states.includes(l.state));
  }
  getNode(id: string): NodeRecord | undefined {
    return this.nodes.get(id);
  }
  append(e: Omit<JournalEvent, 'seq'>): void {
    this.journal.push(e);
  }
  setInterruption(lbl: string, facts: LeaseInterruptionFacts, now: number): void {
    const row = this.leases.find((l) => l.label === lbl);
    if (!row) return;
    if (row.interruption !== facts.interruption)
      this.journal.push({
        ts: now,
        runId: row.runId,
        nodeId: row.nodeId,
        kind: facts.interruption === null ? 'lease.resumed' : 'lease.interrupted',
        data: { label: lbl, state: facts.interruption },
      });
    Object.assign(row, facts);
  }

  /** A lease row; with `node`, also the node that owns it (holding the lease's facts). */
  add(
    provider: string,
    name: string,
    state: LeaseState,
    opts: { node?: boolean; createdAt?: number | null } = {},
  ): string {
    const lbl = label(name);
    const nodeId = opts.node ? `r-${name}/node-0` : null;
    this.leases.push({
      label: lbl,
      leaseId: state === 'requested' ? null : `${provider}:${lbl}`,
      provider,
      runId: nodeId ? `r-${name}` : null,
      nodeId,
      state,
      destroyHandle: null,
      pricePerHour: null,
      requestedAt: T0,
      createdAt: opts.createdAt === undefined ? T0 : opts.createdAt,
      destroyedAt: null,
      destroyAttempts: 0,
      lastError: null,
      reason: null,
      deadMan: null,
      interruption: null,
      bid: null,
      minBid: null,
      rates: [],
      servedFrom: null,
      servedTo: null,
    });
    if (nodeId) {
      const rec = newNodeRecord({
        runId: `r-${name}`,
        logicalId: 'node-0',
        groupId: 'g',
        role: 'worker',
        label: lbl,
        desired: { provider, shape: {}, verify: [], hostKey: 'hk1_test' },
        now: T0,
      });
      this.nodes.set(nodeId, {
        ...rec,
        stage: state === 'requested' ? 'lease_requested' : 'dormant',
        lease: state === 'requested' ? null : factsOf(provider, lbl),
      });
    }
    return lbl;
  }
}

interface Delivered {
  nodeId: string;
  provider: string;
  msg: NodeMsg;
}

export function setup(providers: FakeProvider[], opts: { canWrite?: boolean } = {}) {
  const clock = { t: T0 };
  const ledger = new MemoryLedger();
  const delivered: Delivered[] = [];
  const retried: string[] = [];
  const deps: ReconcilerDeps = {
    ledger,
    providers: { all: () => providers },
    now: () => clock.t,
    everyMs: 30_000,
    canWrite: opts.canWrite ?? true,
    deliver: (nodeId, provider, msg) => delivered.push({ nodeId, provider: provider.kind, msg }),
    retryDestroy: (nodeId) => retried.push(nodeId),
  };
  return { reconciler: new Reconciler(deps), ledger, clock, delivered, retried };
}
