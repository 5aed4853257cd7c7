// A job on a real Slurm cluster (Debian's slurm-wlm, one host, started by the test) through
// its login node (a real sshd): the allocation is the lease — submitted with sbatch, its
// batch script holding the node for the agent, which the bootstrap reaches and starts
// through `srun --overlap`; logs, outputs, and the allocation cancelled and confirmed gone.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { writeClusters } from '../../src-main/providers/slurm/clusters-file';
import { agentBundlePath } from '../helpers/agent-bundle';
import { startLoginNode, startSlurm, type LoginNode, type SlurmCluster } from '../helpers/slurm';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

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
  const key = join(root, 'key');
  writeFileSync(key, login.ssh.clientKey.privateKey);
  chmodSync(key, 0o600);
  writeClusters(h, [
    {
      name: 'lab',
      host: login.ssh.host,
      port: login.ssh.port,
      user: login.ssh.user,
      identityFile: key,
      partition: cluster.partition,
      account: null,
      qos: null,
      gpuHourUsd: null,
    },
  ]);
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
});
