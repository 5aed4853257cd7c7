// A job on a real Slurm cluster (Debian's slurm-wlm, one host, started by the test) through
// its login node (a real sshd): the allocation is the lease — submitted with sbatch, its
// batch script holding the node for the agent, which the bootstrap reaches and starts
// through `srun --overlap`; logs, outputs, and the allocation cancelled and confirmed gone.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { generateEd25519 } from '../../src-main/transport/keys';
import { agentBundlePath } from '../helpers/agent-bundle';
import {
  registerCluster,
  startLoginNode,
  startSlurm,
  type LoginNode,
  type SlurmCluster,
} from '../helpers/slurm';
import { minimalBin } from '../helpers/sshd';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** 0.1 s each: how long a sweep cell waits for the other allocation before it fails (less
 *  than the test's own limit, so a second allocation that never serves fails as a cell). */
const GATE_POLLS = 900;

let cluster: SlurmCluster;
let login: LoginNode;

beforeAll(async () => {
  cluster = await startSlurm();
  login = await startLoginNode(cluster);
}, 60_000);

afterAll(async () => {
  await login?.stop();
  await cluster?.stop();
});

function home() {
  const root = mkdtempSync(join(tmpdir(), 'tender-slurm-'));
  const h = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello from the cluster\n');
  registerCluster(h, cluster, login, join(root, 'key'));
  const core = TenderCore.open({
    home: h,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
  });
  return {
    root,
    h,
    work,
    core,
    async close() {
      await core.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe('Slurm (a real single-host cluster)', () => {
  it('runs the job in an allocation end to end: logs, outputs, allocation cancelled and gone', async () => {
    const t = home();
    try {
      const started = await t.core.client.invoke('run.start', {
        job: {
          name: 'on-slurm',
          run: 'echo "job $SLURM_JOB_ID on $(hostname)"; cat hello.txt; mkdir -p out; echo 42 > out/r.txt',
          outputs: ['out/r.txt'],
          workspace: { workdir: t.work, exclude: [] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      if (!started.ok) throw new Error(started.error.message);
      await t.core.waitRun(started.value.id);
      const v = await t.core.client.invoke('run.get', { runId: started.value.id });
      if (!v.ok) throw new Error(v.error.message);
      const logs = await t.core.client.invoke('logs.read', {
        runId: started.value.id,
        channel: 'agent',
      });
      const boot = await t.core.client.invoke('logs.read', {
        runId: started.value.id,
        channel: 'bootstrap',
      });
      const lines = logs.ok
        ? logs.value.records.filter((r) => r.source === 'run').map((r) => r.line)
        : [];
      expect(
        v.value.status,
        `${v.value.failedReason}\n${boot.ok ? boot.value.records.map((r) => r.line).join('\n') : ''}\n${cluster.log()}`,
      ).toBe('completed');
      expect(lines[0]).toMatch(/^job \d+ on /);
      expect(lines).toContain('hello from the cluster');
      expect(
        readFileSync(
          join(t.h, 'runs', started.value.id, 'node-0', 'outputs', 'out', 'r.txt'),
          'utf8',
        ),
      ).toBe('42\n');
      expect(v.value.nodes[0]!.stage).toBe('destroyed');
      expect(v.value.nodes[0]!.leaseId).toMatch(/^slurm:lab\/\d+$/);
      const q = await cluster.run('squeue -h');
      expect(q.stdout.trim()).toBe('');
    } finally {
      await t.close();
    }
  }, 120_000);

  it('a full cluster: the run waits PENDING with Slurm’s reason, and starts when the node frees', async () => {
    const t = home();
    try {
      // Root fills every CPU of the cluster first.
      const blocker = await cluster.run(`sbatch --parsable -n ${cluster.cpus} --wrap 'sleep 60'`);
      const blockerId = blocker.stdout.trim();
      const started = await t.core.client.invoke('run.start', {
        job: { name: 'waits', run: 'echo ran', workspace: { workdir: t.work, exclude: [] } },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      if (!started.ok) throw new Error(started.error.message);
      const runId = started.value.id;
      const bootLines = async () => {
        const r = await t.core.client.invoke('logs.read', { runId, channel: 'bootstrap' });
        return r.ok ? r.value.records.map((x) => x.line).join('\n') : '';
      };
      for (let i = 0; i < 200 && !/PENDING \(Resources\)/.test(await bootLines()); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await bootLines()).toMatch(/Slurm job \d+ is PENDING \(Resources\)/);
      await cluster.run(`scancel ${blockerId}`);
      await t.core.waitRun(runId);
      const v = await t.core.client.invoke('run.get', { runId });
      expect(v.ok && v.value.status).toBe('completed');
    } finally {
      await t.close();
      await cluster.cancelAll();
    }
  }, 120_000);

  it('a node set DOWN mid-run: the lease is lost in Slurm’s words and [recovery] runs it again', async () => {
    const t = home();
    try {
      const started = await t.core.client.invoke('run.start', {
        job: {
          name: 'down',
          run: 'echo "attempt $TENDER_ATTEMPT"; if [ "$TENDER_ATTEMPT" = 0 ]; then sleep 60; fi',
          workspace: { workdir: t.work, exclude: [] },
          recovery: { max_restarts: 1, on: ['node_lost'] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      if (!started.ok) throw new Error(started.error.message);
      const runId = started.value.id;
      const said = async () => {
        const r = await t.core.client.invoke('logs.read', { runId, channel: 'agent' });
        return r.ok ? r.value.records.filter((x) => x.source === 'run').map((x) => x.line) : [];
      };
      for (let i = 0; i < 300 && !(await said()).includes('attempt 0'); i++)
        await new Promise((r) => setTimeout(r, 100));
      await cluster.setNodeState('DOWN', 'tender-test');
      await new Promise((r) => setTimeout(r, 1_000));
      await cluster.setNodeState('RESUME');
      await t.core.waitRun(runId);
      const v = await t.core.client.invoke('run.get', { runId });
      const ev = await t.core.client.invoke('logs.read', { runId, channel: 'events' });
      const events = ev.ok ? ev.value.records.map((x) => x.line).join('\n') : '';
      const boot = await t.core.client.invoke('logs.read', { runId, channel: 'bootstrap' });
      const bootText = boot.ok
        ? boot.value.records.map((x) => `${x.node} ${x.line}`).join('\n')
        : '';
      expect(
        v.ok && v.value.status,
        `${v.ok && v.value.failedReason}\n${events}\n${bootText}`,
      ).toBe('completed');
      expect(await said()).toEqual(['attempt 0', 'attempt 1']);
      expect(events).toMatch(/Slurm: its node failed|NODE_FAIL|lease is gone/);
    } finally {
      await t.close();
      await cluster.setNodeState('RESUME').catch(() => {});
      await cluster.cancelAll();
    }
  }, 180_000);

  it('a sweep of 6 cells over 2 allocations', async () => {
    const t = home();
    try {
      // A queue lets whichever allocation is up take every cell, so each cell first waits
      // until both allocations have one running: the run completes only if both serve.
      const gate = `"$HOME/arrived-${randomBytes(4).toString('hex')}"`;
      const started = await t.core.client.invoke('run.start', {
        job: {
          name: 'grid',
          run: [
            `mkdir -p ${gate}; touch ${gate}/"$SLURM_JOB_ID"`,
            `for i in $(seq ${GATE_POLLS}); do [ "$(ls ${gate} | wc -l)" -ge 2 ] && break; sleep 0.1; done`,
            `[ "$(ls ${gate} | wc -l)" -ge 2 ] || { echo "only $SLURM_JOB_ID came up" >&2; exit 1; }`,
            'echo "k=$TENDER_PARAM_K on $SLURM_JOB_ID"',
          ].join('\n'),
          workspace: { workdir: t.work, exclude: [] },
          sweep: { axes: { K: ['1', '2', '3', '4', '5', '6'] }, cells: [] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 2 },
      });
      if (!started.ok) throw new Error(started.error.message);
      await t.core.waitRun(started.value.id);
      const cells = await t.core.client.invoke('run.cells', { runId: started.value.id });
      expect(cells.ok && cells.value.map((c) => c.status)).toEqual(Array(6).fill('completed'));
      expect(cells.ok && new Set(cells.value.map((c) => c.node)).size).toBe(2);
      expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
    } finally {
      await t.close();
    }
  }, 120_000);

  it('an unknown partition: refused before the run is written, naming the partitions there are', async () => {
    const t = home();
    try {
      const started = await t.core.client.invoke('run.start', {
        job: { name: 'bad', run: 'true', workspace: { workdir: t.work, exclude: [] } },
        pool: { provider: 'slurm', cluster: 'lab', count: 1, partition: 'nope' },
      });
      expect(started.ok).toBe(false);
      if (started.ok) return;
      expect(started.error.code).toBe('bad_input');
      expect(started.error.message).toBe('cluster lab has no partition "nope"');
      expect(started.error.hint).toMatch(new RegExp(`its partitions: .*${cluster.partition}`));
      expect(t.core.ledger.listRuns()).toEqual([]);
      expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a login node without sbatch: refused before the run is written', async () => {
    const bare = await startLoginNode(cluster, { path: minimalBin() });
    const t = home();
    try {
      registerCluster(t.h, cluster, bare, join(t.root, 'key'), { partition: null });
      const started = await t.core.client.invoke('run.start', {
        job: { name: 'nosbatch', run: 'true', workspace: { workdir: t.work, exclude: [] } },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      expect(!started.ok && started.error).toMatchObject({
        code: 'bad_input',
        message: expect.stringMatching(/sbatch is not on the PATH/),
      });
    } finally {
      await t.close();
      await bare.stop();
    }
  }, 60_000);

  it('its time limit reached mid-run: the run fails saying so, in Slurm’s words; outputs collected', async () => {
    const t = home();
    try {
      const started = await t.core.client.invoke('run.start', {
        job: {
          name: 'long',
          run: 'mkdir -p out; echo partial > out/r.txt; echo started; sleep 300',
          outputs: ['out/r.txt'],
          workspace: { workdir: t.work, exclude: [] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
        policy: { maxDurationMs: 60 * 60_000 },
      });
      if (!started.ok) throw new Error(started.error.message);
      const runId = started.value.id;
      const said = async () => {
        const r = await t.core.client.invoke('logs.read', { runId, channel: 'agent' });
        return r.ok ? r.value.records.filter((x) => x.source === 'run').map((x) => x.line) : [];
      };
      for (let i = 0; i < 300 && !(await said()).includes('started'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const jobId = t.core.ledger.nodesOfRun(runId)[0]!.lease!.leaseId.split('/').pop()!;
      // The allocation was submitted with --time from max_duration (60 min); its end is
      // brought forward as an administrator would (Slurm checks limits every 30 s).
      expect((await cluster.run(`scontrol show job ${jobId} -o`)).stdout).toMatch(
        /TimeLimit=01:00:00/,
      );
      await cluster.run(`scontrol update JobId=${jobId} EndTime=now`);
      await t.core.waitRun(runId);
      const v = await t.core.client.invoke('run.get', { runId });
      expect(v.ok && v.value.status).toBe('failed');
      expect(v.ok && v.value.failedReason).toMatch(/time limit \(TIMEOUT/);
      // What the job had written is collected through the login node (shared filesystem).
      expect(
        readFileSync(join(t.h, 'runs', runId, 'node-0', 'outputs', 'out', 'r.txt'), 'utf8'),
      ).toBe('partial\n');
      expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
    } finally {
      await t.close();
      await cluster.cancelAll();
    }
  }, 120_000);

  it('after a crash, `down --all` finds its allocations — one the ledger never recorded by its name — and cancels them', async () => {
    const t = home();
    try {
      const started = await t.core.client.invoke('run.start', {
        job: {
          name: 'left',
          run: 'echo up; sleep 300',
          workspace: { workdir: t.work, exclude: [] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      if (!started.ok) throw new Error(started.error.message);
      await t.core.waitJobsStarted(started.value.id);
      // An allocation a crash mid-submit left: Tender's name, no ledger row.
      const orphanName = `tender-${t.core.ledger.installId()}-r-orphan-node-0`;
      const orphan = await login.ssh.exec(
        `sbatch --parsable --job-name=${orphanName} --wrap 'sleep 300'`,
      );
      expect(orphan.code, orphan.stderr).toBe(0);
      // The process goes away with both still allocated; the next one tears everything down.
      await t.core.close();
      const again = TenderCore.open({
        home: t.h,
        env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
      });
      try {
        const r = await again.client.invoke('lease.destroyAll', {});
        if (!r.ok) throw new Error(r.error.message);
        expect(
          r.value.outcomes.map((o) => o.confirmed),
          JSON.stringify(r.value),
        ).toEqual([true, true]);
        expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
      } finally {
        await again.close();
      }
    } finally {
      rmSync(t.root, { recursive: true, force: true });
      await cluster.cancelAll();
    }
  }, 120_000);

  it('a login node that refuses the key: refused before the run is written, naming it', async () => {
    const t = home();
    try {
      // Another key than the one the login node authorizes.
      writeFileSync(join(t.root, 'key'), generateEd25519('not-authorized').private);
      const started = await t.core.client.invoke('run.start', {
        job: { name: 'nokey', run: 'true', workspace: { workdir: t.work, exclude: [] } },
        pool: { provider: 'slurm', cluster: 'lab', count: 1 },
      });
      expect(!started.ok && started.error).toMatchObject({
        code: 'bad_input',
        message: expect.stringMatching(/cannot reach lab's login node/),
      });
      expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
    } finally {
      await t.close();
    }
  }, 120_000);
});
