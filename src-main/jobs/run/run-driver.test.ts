// RunDriver against fake jobs and node managers (only what it calls of them) and a real
// SQLite ledger in a temp folder: what each verb does to the jobs and to the run's row, and
// how the jobs' outcomes make the run's.
import { afterEach, describe, expect, it } from 'vitest';
import type { JobStatus } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { NodeManager } from '../../nodes/node-manager';
import { bareRecordIn, T0, tempLedgerWithRun } from '../../nodes/node-fixtures';
import { initialJobState, type JobState } from '../fsm/job-fsm';
import type { NodeJob } from '../node-job/node-job';
import { RunDriver } from './run-driver';

/** What RunDriver uses of a NodeJob and of a NodeManager. */
type DrivenJob = Pick<NodeJob, 'start' | 'resume' | 'stop' | 'abandon' | 'detach' | 'done'>;
type DrivenManager = Pick<NodeManager, 'stop'>;

const NOW = T0 + 60_000;

class FakeJob implements DrivenJob {
  readonly calls: string[] = [];
  readonly done: Promise<JobState>;
  private settle!: (s: JobState) => void;

  constructor() {
    this.done = new Promise((r) => (this.settle = r));
  }
  start(): void {
    this.calls.push('start');
  }
  resume(): void {
    this.calls.push('resume');
  }
  stop(reason?: string): void {
    this.calls.push(reason === undefined ? 'stop' : `stop: ${reason}`);
  }
  abandon(reason: string): void {
    this.calls.push(`abandon: ${reason}`);
  }
  detach(): void {
    this.calls.push('detach');
  }
  end(status: JobStatus, reason: string | null = null): void {
    const base = initialJobState({ hasWorkspace: false, hasSetup: false });
    this.settle({ ...base, status, phase: 'done', reason });
  }
}

class FakeManager implements DrivenManager {
  isStopped = false;
  stop(): void {
    this.isStopped = true;
  }
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function node(logicalId: string): NodeRecord {
  const base = bareRecordIn('new');
  return {
    ...base,
    id: `${base.runId}/${logicalId}`,
    logicalId,
    label: `tender-i-r-${logicalId}`,
  };
}

function driverOf(logicalIds: string[]): {
  driver: RunDriver;
  jobs: FakeJob[];
  managers: FakeManager[];
  ledger: Ledger;
  runChanges: () => number;
} {
  const nodes = logicalIds.map(node);
  const { ledger, close } = tempLedgerWithRun(nodes);
  cleanups.push(close);
  const jobs = nodes.map(() => new FakeJob());
  const managers = nodes.map(() => new FakeManager());
  let changes = 0;
  const driver = new RunDriver(
    nodes[0]!.runId,
    new Map(nodes.map((n, i) => [n.id, managers[i]!])) as Map<string, DrivenManager> as Map<
      string,
      NodeManager
    >,
    new Map(nodes.map((n, i) => [n.id, jobs[i]!])) as Map<string, DrivenJob> as Map<
      string,
      NodeJob
    >,
    ledger,
    () => NOW,
    () => changes++,
  );
  return { driver, jobs, managers, ledger, runChanges: () => changes };
}

const runOf = (ledger: Ledger) => ledger.getRun(bareRecordIn('new').runId)!;

describe('RunDriver: the verbs', () => {
  it('start marks the run running and driven by this process, then starts every job', () => {
    const { driver, jobs, ledger, runChanges } = driverOf(['node-0', 'node-1']);
    driver.start();
    expect(runOf(ledger)).toMatchObject({
      status: 'running',
      detached: false,
      driverPid: process.pid,
      endedAt: null,
    });
    expect(jobs.map((j) => j.calls)).toEqual([['start'], ['start']]);
    expect(runChanges()).toBe(1);
  });

  it('resume takes the run back from detached without touching its status', () => {
    const { driver, jobs, ledger, runChanges } = driverOf(['node-0', 'node-1']);
    ledger.updateRun(runOf(ledger).id, { status: 'running', detached: true, driverPid: null }, T0);
    driver.resume();
    expect(runOf(ledger)).toMatchObject({
      status: 'running',
      detached: false,
      driverPid: process.pid,
    });
    expect(jobs.map((j) => j.calls)).toEqual([['resume'], ['resume']]);
    expect(runChanges()).toBe(1);
  });

  it.each<[string, (d: RunDriver) => void, string]>([
    ['cancel stops every job with the default reason', (d) => d.cancel(), 'stop'],
    [
      'abandon tears every job down at once, with the reason',
      (d) => d.abandon('tear down all'),
      'abandon: tear down all',
    ],
  ])('%s', (_name, act, call) => {
    const { driver, jobs, ledger } = driverOf(['node-0', 'node-1']);
    driver.start();
    act(driver);
    expect(jobs.map((j) => j.calls)).toEqual([
      ['start', call],
      ['start', call],
    ]);
    expect(runOf(ledger)).toMatchObject({ status: 'running', detached: false });
  });

  it('detach leaves the jobs running, stops the managers, and marks the run driverless', () => {
    const { driver, jobs, managers, ledger, runChanges } = driverOf(['node-0', 'node-1']);
    driver.start();
    driver.detach();
    expect(jobs.map((j) => j.calls)).toEqual([
      ['start', 'detach'],
      ['start', 'detach'],
    ]);
    expect(managers.map((m) => m.isStopped)).toEqual([true, true]);
    expect(runOf(ledger)).toMatchObject({ status: 'running', detached: true, driverPid: null });
    expect(runChanges()).toBe(2);
  });
});

describe('RunDriver: done, from the jobs’ outcomes', () => {
  it.each<[string, [JobStatus, string | null][], JobStatus, string | null]>([
    [
      'every job completed',
      [
        ['completed', null],
        ['completed', null],
      ],
      'completed',
      null,
    ],
    [
      'one job failed',
      [
        ['completed', null],
        ['failed', 'run exited 3'],
      ],
      'failed',
      'node-1: run exited 3',
    ],
    [
      'two failed: the first node’s reason',
      [
        ['failed', 'lease lost: gone'],
        ['failed', 'run exited 3'],
      ],
      'failed',
      'node-0: lease lost: gone',
    ],
    ['a failure without a reason', [['failed', null]], 'failed', 'node-0: failed'],
    [
      'cancelled by its user',
      [
        ['cancelled', 'cancelled'],
        ['completed', null],
      ],
      'cancelled',
      'node-0: cancelled',
    ],
    [
      'one cancelled, one failed: failed, with the failed node’s reason',
      [
        ['cancelled', 'cancelled'],
        ['failed', 'run exited 3'],
      ],
      'failed',
      'node-1: run exited 3',
    ],
  ])('%s', async (_name, outcomes, status, failedReason) => {
    const ids = outcomes.map((_, i) => `node-${i}`);
    const { driver, jobs, ledger } = driverOf(ids);
    driver.start();
    // Ends in reverse: the outcome follows the nodes' order, not the order they ended in.
    [...outcomes].reverse().forEach(([s, reason], i) => jobs[jobs.length - 1 - i]!.end(s, reason));

    await expect(driver.done).resolves.toEqual({ status, failedReason });
    expect(runOf(ledger)).toMatchObject({ status, failedReason, endedAt: NOW, driverPid: null });
  });

  it('waits for every job, even after one has failed', async () => {
    const { driver, jobs, ledger } = driverOf(['node-0', 'node-1']);
    driver.start();
    let isDone = false;
    void driver.done.then(() => (isDone = true));
    jobs[0]!.end('failed', 'run exited 1');
    await new Promise((r) => setImmediate(r));
    expect(isDone).toBe(false);
    expect(runOf(ledger).endedAt).toBeNull();

    jobs[1]!.end('completed');
    await driver.done;
    expect(isDone).toBe(true);
  });
});
