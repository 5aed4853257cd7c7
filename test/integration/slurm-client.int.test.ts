// The Slurm client (src-main/providers/slurm/) against a real single-host cluster
// (test/helpers/slurm.ts: munged, slurmctld, slurmd) and a real sshd as its login node,
// whose throw-away user submits, lists and cancels its own jobs over an SshShell. Each test
// leaves no job behind (checked after each). Needs root. What it taught: docs/slurm.md.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancelJobs } from '../../src-main/providers/slurm/scancel';
import { showJob, type SlurmJobRecord } from '../../src-main/providers/slurm/scontrol';
import { submitJob, type SbatchRequest } from '../../src-main/providers/slurm/sbatch';
import { listJobs, type SqueueRow } from '../../src-main/providers/slurm/squeue';
import { SlurmError } from '../../src-main/providers/slurm/slurm-error';
import { jobStatus } from '../../src-main/providers/slurm/slurm-status';
import type { SshShell } from '../../src-main/transport/ssh-shell';
import { type LoginNode, type SlurmCluster, startLoginNode, startSlurm } from '../helpers/slurm';
import { minimalBin } from '../helpers/sshd';

let cluster: SlurmCluster;
let login: LoginNode;
let shell: SshShell;

beforeAll(async () => {
  cluster = await startSlurm();
  login = await startLoginNode(cluster);
  shell = await login.connect();
}, 60_000);

afterAll(async () => {
  await login?.stop();
  await cluster?.stop();
});

afterEach(async () => {
  const left = (await cluster.run('squeue -h -o %i')).stdout.trim();
  await cluster.cancelAll();
  await cluster.setNodeState('RESUME').catch(() => {}); // refused when not down: fine
  expect(left, 'a test left jobs behind').toBe('');
});

const SLEEP = '#!/bin/bash\nsleep 300\n';

function job(name: string, more: Partial<SbatchRequest> = {}): SbatchRequest {
  return { jobName: name, nodes: 1, script: SLEEP, output: `${name}-%j.out`, ...more };
}

/** Polls `f` until it returns a value, or fails after `ms` with what it saw last. */
async function waitFor<T>(what: string, f: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms\n${cluster.log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function row(jobId: string): Promise<SqueueRow | null> {
  return (await listJobs(shell, { jobIds: [jobId], allStates: true }))[0] ?? null;
}

async function inState(jobId: string, state: string, ms?: number): Promise<SlurmJobRecord> {
  return waitFor(
    `job ${jobId} ${state}`,
    async () => {
      const j = await showJob(shell, jobId);
      return j?.state === state ? j : null;
    },
    ms,
  );
}

describe('the login node', () => {
  it('gives exec sessions SLURM_CONF, and its user submits jobs that run as that user', async () => {
    const r = await login.ssh.exec('printf "%s\\n" "$SLURM_CONF"; id -un; sinfo -h -o %P');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([cluster.conf, login.ssh.user]);
    expect(r.stdout).toContain('debug*');

    const { jobId, cluster: name } = await submitJob(
      shell,
      job('whoami', { script: '#!/bin/bash\nid -un; echo "home=$HOME"\n', output: 'whoami.out' }),
    );
    expect(jobId).toMatch(/^\d+$/);
    expect(name).toBeNull();
    const done = await inState(jobId, 'COMPLETED');
    expect(done).toMatchObject({ exitCode: 0, nodes: cluster.hostname });
    expect(jobStatus(done.state, done.reason)).toMatchObject({ kind: 'gone', cause: 'completed' });
    const out = await login.ssh.exec('cat whoami.out');
    expect(out.stdout).toBe(`${login.ssh.user}\nhome=${login.ssh.home}\n`);
  });
});

describe('jobs through their life', () => {
  it('runs, waits for Resources, and one scancel ends both', async () => {
    const a = await submitJob(shell, job('tender-a'));
    const running = await waitFor('a RUNNING', async () => {
      const r = await row(a.jobId);
      return r?.state === 'RUNNING' ? r : null;
    });
    expect(running).toMatchObject({
      name: 'tender-a',
      nodes: cluster.hostname,
      reason: 'None',
      timeLeft: 'UNLIMITED',
      timeLeftS: null,
    });
    expect(running.startTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(jobStatus(running.state, running.reason).kind).toBe('running');

    const b = await submitJob(shell, job('tender-b', { cpus: cluster.cpus, timeLimitMin: 5 }));
    const pending = await waitFor('b pending for Resources', async () => {
      const r = await row(b.jobId);
      return r?.state === 'PENDING' && r.reason === 'Resources' ? r : null;
    });
    expect(pending).toMatchObject({ nodes: '', timeLeft: '5:00', timeLeftS: 300 });
    expect(jobStatus(pending.state, pending.reason)).toMatchObject({
      kind: 'pending',
      reason: 'Resources',
      blocked: false,
    });

    // Both by name, and --start: only b, whose start nobody can estimate while a (no time
    // limit) runs: N/A.
    const mine = await listJobs(shell, { user: true, names: ['tender-a', 'tender-b'] });
    expect(mine.map((r) => [r.name, r.state]).sort()).toEqual([
      ['tender-a', 'RUNNING'],
      ['tender-b', 'PENDING'],
    ]);
    const starts = await listJobs(shell, { user: true, start: true });
    expect(starts.map((r) => [r.jobId, r.startTime])).toEqual([[b.jobId, null]]);

    await cancelJobs(shell, [a.jobId, b.jobId]);
    await waitFor('both gone from the queue', async () =>
      (await listJobs(shell, { jobIds: [a.jobId, b.jobId] })).length === 0 ? true : null,
    );
    for (const id of [a.jobId, b.jobId]) {
      const j = await showJob(shell, id);
      expect(j?.state).toBe('CANCELLED');
      expect(jobStatus(j!.state, j!.reason)).toMatchObject({ kind: 'gone', cause: 'cancelled' });
    }
    // A cancel of ended or unknown jobs has nothing to do, and says so by not failing.
    await cancelJobs(shell, [a.jobId, '99999']);
    expect(await listJobs(shell, { jobIds: ['99999'] })).toEqual([]);
    expect(await showJob(shell, '99999')).toBeNull();
  });

  // The time limit: `TimeLimit=0:0:3` would be rounded up to a whole minute (Slurm's unit),
  // EndTime=now ends the limit at once; slurmctld looks at limits every 30 s.
  it('ends a job at its time limit: TIMEOUT', async () => {
    const t = await submitJob(shell, job('tender-walltime', { timeLimitMin: 10 }));
    await inState(t.jobId, 'RUNNING');
    const upd = await cluster.run(`scontrol update JobId=${t.jobId} EndTime=now`);
    expect(upd.code, upd.stderr).toBe(0);
    const ended = await inState(t.jobId, 'TIMEOUT', 60_000);
    expect(ended.reason).toBe('TimeLimit');
    expect(jobStatus(ended.state, ended.reason)).toMatchObject({
      kind: 'gone',
      cause: 'time_limit',
      slurm: 'TIMEOUT (TimeLimit)',
    });
    expect((await row(t.jobId))?.state).toBe('TIMEOUT');
  }, 90_000);

  // Slurm 22.05 with JobRequeue=1 (its default): a batch job on a node set DOWN is requeued
  // (PENDING, BeginTime, Restarts=1, eligible again ~2 min later); with --no-requeue it
  // ends in NODE_FAIL (Reason=NodeDown).
  it('a node set DOWN mid-job: requeued, or NODE_FAIL with --no-requeue', async () => {
    const kept = await submitJob(shell, job('tender-requeue'));
    const lost = await submitJob(shell, job('tender-norequeue', { requeue: false }));
    await inState(kept.jobId, 'RUNNING');
    await inState(lost.jobId, 'RUNNING');

    await cluster.setNodeState('DOWN', 'test');
    const failed = await inState(lost.jobId, 'NODE_FAIL');
    expect(failed).toMatchObject({ reason: 'NodeDown', requeue: false, restarts: 0 });
    expect(jobStatus(failed.state, failed.reason)).toMatchObject({
      kind: 'gone',
      cause: 'node_fail',
    });
    // Just requeued it is PENDING (None) for a moment, then held for its BeginTime.
    const requeued = await waitFor('requeued', async () => {
      const j = await showJob(shell, kept.jobId);
      return j?.state === 'PENDING' && j.reason === 'BeginTime' ? j : null;
    });
    expect(requeued).toMatchObject({ restarts: 1, requeue: true, nodes: '' });
    expect(jobStatus(requeued.state, requeued.reason)).toMatchObject({
      kind: 'pending',
      reason: 'BeginTime',
    });
    const sinfo = await cluster.run(`sinfo -h -n ${cluster.hostname} -o '%T %E'`);
    expect(sinfo.stdout.trim().split('\n')[0]).toBe('down test');

    await cluster.setNodeState('RESUME');
    await cluster.waitIdle();
    await cancelJobs(shell, [kept.jobId]);
    await inState(kept.jobId, 'CANCELLED');
  });

  it('a job preempted by one in a higher-priority partition: PREEMPTED', async () => {
    const victim = await submitJob(shell, job('tender-victim'));
    await inState(victim.jobId, 'RUNNING');
    const urgent = await submitJob(
      shell,
      job('tender-urgent', { partition: 'urgent', cpus: cluster.cpus }),
    );
    const gone = await inState(victim.jobId, 'PREEMPTED');
    expect(jobStatus(gone.state, gone.reason)).toMatchObject({ kind: 'gone', cause: 'preempted' });
    await inState(urgent.jobId, 'RUNNING');
    await cancelJobs(shell, [urgent.jobId]);
    await inState(urgent.jobId, 'CANCELLED');
  });
});

describe("sbatch's refusals", () => {
  async function refusal(req: SbatchRequest, on = shell): Promise<SlurmError> {
    const err = await submitJob(on, req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SlurmError);
    return err as SlurmError;
  }

  it('names an unknown partition, an account the partition refuses, a limit it never allows', async () => {
    const part = await refusal(job('tender-x', { partition: 'nope' }));
    expect(part).toMatchObject({ kind: 'bad_partition', opts: { fatal: true } });
    expect(part.message).toContain('"nope"');
    expect(part.opts.hint).toContain('sinfo -s');
    expect(part.said).toBe(
      'invalid partition specified: nope Batch job submission failed: Invalid partition name specified',
    );

    const acct = await refusal(job('tender-x', { partition: 'locked', account: 'lab' }));
    expect(acct.kind).toBe('bad_account');
    expect(acct.message).toContain('"lab" on partition "locked"');

    const time = await refusal(job('tender-x', { partition: 'gpu', timeLimitMin: 90 }));
    expect(time.kind).toBe('refused');
    expect(time.said).toContain('Requested time limit is invalid');

    const gpus = await refusal(job('tender-x', { gpus: 1 }));
    expect(gpus.kind).toBe('refused');
    expect(gpus.said).toBe('Invalid generic resource (gres) specification');
  });

  it('says so when sbatch is not on the PATH of an ssh session', async () => {
    const bare = await startLoginNode(cluster, { path: minimalBin() });
    try {
      const err = await refusal(job('tender-x'), await bare.connect());
      expect(err.kind).toBe('no_sbatch');
      expect(err.message).toContain('sbatch is not on the PATH');
    } finally {
      await bare.stop();
    }
  });
});
