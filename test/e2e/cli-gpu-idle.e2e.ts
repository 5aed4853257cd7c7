// The GPU idle rule through the built CLI, as a newcomer writes it: `[policy] gpu_idle` with
// only a (test-short) window, a fake nvidia-smi on PATH reporting idle GPUs. `tender run`
// ends failed with the rule as the reason, `tender status` prints the rule and what fired,
// `tender logs` the node's own line; a node without GPUs is warned of at launch.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeFakeNvidiaSmi } from '../helpers/fake-nvidia-smi';

const homes = useTempHomes();

function jobFile(root: string, run: string, policy: string): string {
  const file = join(root, 'tender.toml');
  writeFileSync(
    file,
    `[job]\nname = "idle"\nrun = "${run}"\n[pool]\nprovider = "local"\n[policy]\n${policy}\n`,
  );
  return file;
}

describe('tender run with [policy] gpu_idle', () => {
  it('stops a job that leaves every GPU idle; status and logs say so', async () => {
    const { home, root } = homes();
    const bin = writeFakeNvidiaSmi(join(root, 'bin'), '0, 1, 4, 81920\n');
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const file = jobFile(root, 'echo started; sleep 600', 'gpu_idle = { for = "2s" }');

    const run = await runCli(['run', file], { home, env });
    expect(run.code, run.stderr).not.toBe(0);
    const out = run.stdout + run.stderr;
    expect(out).toMatch(/GPU idle rule: every GPU under 10% for \d+(\.\d)?s while the job ran/);
    const runId = /\b(r-[a-z0-9]+)\b/.exec(out)![1]!;

    const status = await runCli(['status'], { home, env });
    expect(status.stdout).toContain(`${runId}: GPU idle rule: stop after 2s under 10%`);
    expect(status.stdout).toMatch(
      /node-0: fired: every GPU under 10% for \S+ while the job ran — stopped the job \(\d+s ago\)/,
    );
    const json = JSON.parse((await runCli(['status', '--json'], { home, env })).stdout) as {
      runs: { id: string; policy: { gpuIdle?: unknown }; nodes: { gpuIdleFired?: unknown }[] }[];
    };
    const r = json.runs.find((x) => x.id === runId)!;
    expect(r.policy.gpuIdle).toEqual({ belowPct: 10, forMs: 2_000, then: 'stop' });
    expect(r.nodes[0]!.gpuIdleFired).toMatchObject({ did: 'stopped_job' });

    const logs = await runCli(['logs', runId], { home, env });
    expect(logs.stdout).toContain('started');
    expect(logs.stdout).toMatch(/GPU idle rule: .*; stopping the job \(then = "stop"\)/);
    expect(logs.stdout).not.toContain('"did"'); // the firing's data record is never printed
  });

  it('warns at launch that the rule cannot apply on a node without GPUs', async () => {
    const { home, root } = homes();
    // No nvidia-smi anywhere on this PATH.
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
    const file = jobFile(root, 'echo hi', 'gpu_idle = { then = "notify" }');
    const run = await runCli(['run', file], { home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain(
      'warning: GPU idle rule: notify after 30m under 10% cannot apply on node-0: nvidia-smi found no GPU there',
    );
  });
});
