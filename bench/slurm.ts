// Slurm through Tender on a real single-host cluster (Debian slurm-wlm, started here) and
// a login node over real sshd: `run.start` → the job's first line (submit, schedule,
// bootstrap through srun, push, start), median of reps; then tearing down 20 allocations
// (Tender's `lease.destroyAll`: cancels gathered into one scancel) beside one `scancel` of
// all 20 and 20 sequential ones, each over ssh to the login node.
// Targets: first line < 3 s; 20 teardowns ≈ one scancel round trip.
// Usage: node bench/run.mjs slurm [reps=3]   (after `npm run build`; root)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TenderCore } from '../src-main/core/tender-core';
import { registerCluster, startLoginNode, startSlurm } from '../test/helpers/slurm';
import { median, ms } from './bench-helpers';

const REPS = Number(process.argv[2] ?? 3);
const BUNDLE = join(resolve(process.cwd()), 'out', 'agent', 'tender-agent.cjs');
const cluster = await startSlurm({ cpus: 2 });
const login = await startLoginNode(cluster);
const root = mkdtempSync(join(tmpdir(), 'tender-bench-slurm-'));
const home = join(root, 'home');
const work = join(root, 'work');
mkdirSync(work, { recursive: true });
writeFileSync(join(work, 'train.py'), 'print(1)\n');
registerCluster(home, cluster, login, join(root, 'key'));
const core = TenderCore.open({ home, env: { ...process.env, TENDER_AGENT_BUNDLE: BUNDLE } });

try {
  const firsts: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const t0 = Date.now();
    const started = await core.client.invoke('run.start', {
      job: { name: 'bench', run: 'echo first', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'slurm', cluster: 'lab', count: 1 },
    });
    if (!started.ok) throw new Error(started.error.message);
    let first = 0;
    const off = core.bus.on('log.lines', ({ records }) => {
      if (!first && records.some((r) => r.source === 'run' && r.line === 'first'))
        first = Date.now() - t0;
    });
    await core.waitRun(started.value.id);
    off();
    firsts.push(first);
  }
  console.log(
    `slurm: run.start → first job line: median ${ms(median(firsts))} (${firsts.map(ms).join(', ')})   target < 3 s`,
  );

  const submit = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await login.ssh.exec(
        `sbatch --parsable --job-name=tender-${core.ledger.installId()}-r-bench${i}-node-0 --wrap 'sleep 600'`,
      );
      ids.push(r.stdout.trim());
    }
    return ids;
  };
  let ids = await submit(20);
  let t = Date.now();
  for (const id of ids) await login.ssh.exec(`scancel ${id}`);
  const sequential = Date.now() - t;
  await cluster.cancelAll();
  ids = await submit(20);
  t = Date.now();
  await login.ssh.exec(`scancel ${ids.join(' ')}`);
  const one = Date.now() - t;
  await cluster.cancelAll();
  await submit(20);
  t = Date.now();
  const r = await core.client.invoke('lease.destroyAll', {});
  const tender = Date.now() - t;
  const confirmed = r.ok ? r.value.outcomes.filter((o) => o.confirmed).length : 0;
  console.log(
    `20 allocations: Tender down --all ${ms(tender)} (${confirmed} confirmed gone, listing included); one scancel of all ${ms(one)}; 20 scancels ${ms(sequential)}`,
  );
} finally {
  await core.close();
  await login.stop();
  await cluster.stop();
  rmSync(root, { recursive: true, force: true });
}
