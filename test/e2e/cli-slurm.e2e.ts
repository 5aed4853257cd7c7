// `tender run --provider slurm` through the CLI on a real single-host Slurm cluster and a
// login node over sshd: the job's output printed; then `kill -9` of Tender mid-run and
// `tender down --all` from a new process: the allocation is found and cancelled, none left.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import {
  registerCluster,
  startLoginNode,
  startSlurm,
  type LoginNode,
  type SlurmCluster,
} from '../helpers/slurm';

const newHome = useTempHomes();
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

describe('tender run --provider slurm', () => {
  it('runs on the cluster; kill -9 mid-run, then down --all leaves no allocation', async () => {
    const { home, root } = newHome();
    registerCluster(home, cluster, login, join(root, 'key'));
    const quick = writeJob(
      root,
      'quick',
      '[job]\nname = "quick"\nrun = "echo on the cluster; hostname"\n',
    );
    const ran = await runCli(['run', quick, '--provider', 'slurm', '--cluster', 'lab'], { home });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('on the cluster');
    expect(ran.stderr).toMatch(/run r-[a-z0-9]+ completed/);

    const long = writeJob(root, 'long', '[job]\nname = "long"\nrun = "echo started; sleep 300"\n');
    const p = new CliProcess(['run', long, '--provider', 'slurm', '--cluster', 'lab'], { home });
    await p.waitFor('stdout', /started/);
    expect((await cluster.run('squeue -h -o %j')).stdout).toMatch(/tender-/);
    p.child.kill('SIGKILL');
    await p.exited;
    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toMatch(/1 lease\(s\) confirmed destroyed/);
    expect((await cluster.run('squeue -h')).stdout.trim()).toBe('');
  }, 120_000);
});
