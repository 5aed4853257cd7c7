import type { EventBus } from '../../base/event-bus';
import type { Ledger } from '../../ledger/ledger';
import type { Timing } from '../settings/timing';
import { warmFactsOfLease } from '../runs/warm-view';
import {
  type GpuOf,
  leaseView,
  nodeView,
  runView,
  withGpu,
  isAgentUp,
  type LinkStateOf,
  type PullOf,
} from './view-builders';

export interface EventProjectorDeps {
  ledger: Ledger;
  bus: EventBus;
  now: () => number;
  timing: () => Timing;
  linkState: LinkStateOf;
  /** What the provider says of a provisioning lease this process drives. */
  pullOf?: PullOf;
  /** A node's lease went past `created` (destroying, destroyed, lost). */
  onNodeLeaseGone: (nodeId: string) => void;
  /** The GPU summaries of the samples this process holds; none without. */
  gpuOf?: GpuOf;
}

/** Turns ledger changes into the contract's events: `node.changed`, `run.changed` and
 *  `lease.changed`, each carrying the same view a query would return. */
export class EventProjector {
  private readonly unwatch: () => void;

  constructor(private readonly d: EventProjectorDeps) {
    this.unwatch = d.ledger.onLeaseChange((label) => {
      const row = d.ledger.getLease(label);
      if (!row) return;
      // The same view status.get gives: the runs it served, and whether it is warm now.
      const now = d.now();
      const warm = row.state === 'created' ? warmFactsOfLease(d.ledger, row, now) : null;
      d.bus.emit(
        'lease.changed',
        leaseView(row, now, {
          servedRuns: d.ledger.servedRuns(label),
          warm,
        }),
      );
      if (row.nodeId && row.state !== 'requested' && row.state !== 'created')
        d.onNodeLeaseGone(row.nodeId);
      // A run's cost and burn rate move with its leases.
      if (row.runId && d.ledger.getRun(row.runId)) this.emitRun(row.runId);
    });
  }

  readonly emitNode = (nodeId: string): void => {
    const { ledger } = this.d;
    const rec = ledger.getNode(nodeId);
    if (!rec) return;
    const run = ledger.getRun(rec.runId);
    const view = nodeView(
      ledger,
      rec,
      this.d.linkState,
      this.d.timing(),
      run?.createdAt ?? rec.stageSince,
      this.d.pullOf,
    );
    const { gpuOf } = this.d;
    this.d.bus.emit('node.changed', gpuOf ? withGpu(view, run?.policy ?? null, gpuOf) : view);
  };

  /** A node's GPU summary changed: its view again, while its agent is up (a node being
   *  torn down is not re-announced for a last sample). */
  readonly emitGpu = (nodeId: string): void => {
    const rec = this.d.ledger.getNode(nodeId);
    if (rec && isAgentUp(rec.stage)) this.emitNode(nodeId);
  };

  readonly emitRun = (runId: string): void => {
    const { ledger } = this.d;
    const run = ledger.getRun(runId);
    if (!run) return;
    this.d.bus.emit(
      'run.changed',
      runView(
        ledger,
        run,
        this.d.linkState,
        this.d.timing(),
        this.d.now(),
        this.d.gpuOf,
        this.d.pullOf,
      ),
    );
  };

  close(): void {
    this.unwatch();
  }
}
