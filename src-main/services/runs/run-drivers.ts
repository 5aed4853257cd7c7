// The run drivers this process holds, and the jobs of nodes its ended runs kept warm.
import { TenderError } from '../../base/tender-error';
import type { NodeJob } from '../../jobs/node-job/node-job';
import type { RunDriver } from '../../jobs/run/run-driver';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { NodeManager } from '../../nodes/node-manager';
import type { ProviderRegistry } from '../../providers/registry';
import type { Timing } from '../settings/timing';
import { assembleRun, type RunAssemblyDeps, type RunToAssemble } from './run-assembly';

export interface RunDriversDeps extends Omit<RunAssemblyDeps, 'guardEveryMs'> {
  ledger: Ledger;
  providers: Pick<ProviderRegistry, 'get'>;
  timing: () => Timing;
}

/** A run is driven by one process at a time; this registry is this process's share. */
export class RunDrivers {
  private readonly drivers = new Map<string, RunDriver>();
  /** Each driven run's policy guard, stopped when its driver ends or is dropped. */
  private readonly guards = new Map<string, () => void>();
  /** Jobs whose run ended with their node kept warm, by node: their links stay up until
   *  close, or until a later run claims the node. */
  private readonly warmJobs = new Map<string, { job: NodeJob; manager: NodeManager }>();

  constructor(private readonly d: RunDriversDeps) {}

  has(runId: string): boolean {
    return this.drivers.has(runId);
  }

  /** The run's driver here, attached first when this process does not drive it yet. */
  held(runId: string): RunDriver {
    return this.drivers.get(runId) ?? this.attach(runId);
  }

  drivenHere(runId: string): RunDriver {
    const d = this.drivers.get(runId);
    if (!d) throw new TenderError('conflict', `run ${runId} is not being driven by this process`);
    return d;
  }

  /** Drives a run another process left (or detached): its jobs pick up where the ledger
   *  says they were. */
  attach(runId: string): RunDriver {
    const { ledger } = this.d;
    const run = ledger.getRun(runId);
    if (!run) throw new TenderError('not_found', `no run ${runId}`);
    const nodes = ledger.nodesOfRun(runId);
    const unfinished = nodes.some((n) => ledger.getAttempt(n.id)?.phase !== 'done');
    if (!unfinished)
      throw new TenderError('conflict', `run ${runId} has already ended (${run.status})`);
    const driver = this.drive({
      runId,
      job: ledger.jobSpec(run.jobId),
      keep: run.keep || run.policy?.afterJob === 'keep_warm',
      nodes,
      provider: this.d.providers.get(run.provider),
      resuming: true,
      freshSetup: false, // a setup already started is not started again
    });
    driver.resume();
    return driver;
  }

  /** Stops driving a run here (it keeps going on its nodes). */
  detach(runId: string): void {
    const driver = this.drivers.get(runId);
    if (!driver) return;
    driver.detach();
    this.forget(runId);
  }

  /** Assembles a run's driver and holds it until it is done; starts nothing but its guard. */
  drive(r: RunToAssemble): RunDriver {
    const { driver, stopGuard } = assembleRun(
      { ...this.d, guardEveryMs: this.d.timing().guardEveryMs },
      r,
    );
    this.drivers.set(r.runId, driver);
    this.guards.set(r.runId, stopGuard);
    void driver.done.then(() => {
      if (this.drivers.get(r.runId) === driver) this.forget(r.runId);
      else stopGuard();
      for (const [id, job] of driver.jobs) {
        const manager = driver.managers.get(id);
        // Nodes kept warm keep their link (and their switch renewed) while this process runs.
        if (manager && manager.record.stage !== 'destroyed')
          this.warmJobs.set(id, { job, manager });
        // A long-lived app keeps only managers with something left to do (a destroy retrying).
        else if (manager) this.d.factory.release(manager);
      }
    });
    return driver;
  }

  /** The claimed warm nodes' old jobs stop acting here (their renewals, their link): the
   *  new run's jobs hold the leases now. Notes say why other warm nodes were passed over. */
  takeOverWarm(nodes: NodeRecord[], passedOver: string[]): void {
    for (const n of nodes) {
      const from = n.claimedFrom?.nodeId;
      const held = from ? this.warmJobs.get(from) : undefined;
      if (!held) continue;
      held.job.detach();
      this.d.factory.release(held.manager);
      this.warmJobs.delete(from!);
    }
    for (const n of nodes) {
      const lines = n.claimedFrom
        ? [
            `reusing warm node ${n.lease?.leaseId ?? n.label} (kept by run ${n.claimedFrom.runId}): no create, no bootstrap`,
          ]
        : passedOver.map((line) => `renting a new node: ${line}`);
      for (const line of lines)
        this.d.datastream.append(n.id, 'events', {
          source: 'event',
          stream: 'info',
          line,
          ts: this.d.now(),
        });
    }
  }

  /** The NodeManager a run driven by this process holds for a node, if any. */
  managerOf(nodeId: string): NodeManager | undefined {
    for (const d of this.drivers.values()) {
      const m = d.managers.get(nodeId);
      if (m) return m;
    }
    return undefined;
  }

  /** The job a run driven by this process runs on a node, if any. */
  jobOf(nodeId: string): NodeJob | undefined {
    for (const d of this.drivers.values()) {
      const j = d.jobs.get(nodeId);
      if (j) return j;
    }
    return undefined;
  }

  /** Every run driven here stops its jobs for good (tear down all). */
  abandonAll(reason: string): void {
    for (const d of this.drivers.values()) d.abandon(reason);
  }

  /** Stops driving every run (they keep going on their nodes), and lets the warm nodes'
   *  links go. */
  close(): void {
    for (const id of [...this.drivers.keys()]) this.detach(id);
    for (const w of this.warmJobs.values()) w.job.detach();
    this.warmJobs.clear();
  }

  /** Drops a driver and stops its guard: a detached run's guard must not outlive it (its
   *  `done` never resolves here, and the ledger may close). */
  private forget(runId: string): void {
    this.guards.get(runId)?.();
    this.guards.delete(runId);
    this.drivers.delete(runId);
  }
}
