import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliProcess, processesMentioning, runCli, useTempHomes } from '../helpers/cli';
import { tickerJob } from '../helpers/job-files';

const newHome = useTempHomes();

function runIdOf(stderr: string): string {
  const m = /run (r-[a-z0-9]+)/.exec(stderr);
  if (!m) throw new Error(`no run id in:\n${stderr}`);
  return m[1]!;
}

async function statusOf(home: string) {
  const r = await runCli(['status', '--json'], { home });
  return JSON.parse(r.stdout) as {
    runs: {
      id: string;
      status: string;
      detached: boolean;
      failedReason: string | null;
      nodes: { stage: string; jobPhase: string }[];
    }[];
    leases: { state: string }[];
  };
}

describe('Ctrl-C during tender run', () => {
  it('asks, and "cancel" stops the job, collects outputs and tears the node down', async () => {
    const { home, root } = newHome();
    const marker = `mk-cancel-${Date.now()}`;
    const job = tickerJob(root, { ticks: 600, intervalS: 0.1, marker });
    const p = new CliProcess(['run', job], { home });
    await p.waitFor('stdout', /tick 3\n/);
    expect(processesMentioning(marker).length).toBeGreaterThan(0);
    p.child.kill('SIGINT');
    await p.waitFor('stderr', /\[c\] cancel the job/);
    p.child.stdin.write('c\n');
    const r = await p.exited;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/cancelled: node-0: cancelled/);
    expect(processesMentioning(marker)).toEqual([]);
    const s = await statusOf(home);
    expect(s.runs[0]).toMatchObject({
      status: 'cancelled', // stopped by its user: not a failure
      failedReason: 'node-0: cancelled',
      nodes: [{ stage: 'destroyed' }],
    });
    // Outputs were collected best effort before the teardown.
    const ticks = readFileSync(
      join(home, 'runs', s.runs[0]!.id, 'node-0', 'outputs', 'out', 'ticks.txt'),
      'utf8',
    );
    expect(ticks).toMatch(/^tick 1\ntick 2\ntick 3\n/);
    expect(readdirSync(join(home, 'local', 'leases'))).toEqual([]);
  });

  it('"detach" leaves the job running; `tender logs --follow` reattaches and finishes the run', async () => {
    const { home, root } = newHome();
    const marker = `mk-detach-${Date.now()}`;
    const job = tickerJob(root, { ticks: 40, intervalS: 0.1, marker });
    const p = new CliProcess(['run', job], { home });
    await p.waitFor('stdout', /tick 2\n/);
    p.child.kill('SIGINT');
    await p.waitFor('stderr', /\[d\] detach/);
    p.child.stdin.write('d\n');
    const r = await p.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/detached from r-/);
    const runId = runIdOf(r.stderr);

    // Detached: still running on its node, lease live, the driver gone.
    const s = await statusOf(home);
    expect(s.runs[0]).toMatchObject({ id: runId, status: 'running', detached: true });
    expect(s.leases.map((l) => l.state)).toEqual(['created']);
    expect(processesMentioning(marker).length).toBeGreaterThan(0);

    const follow = await runCli(['logs', runId, '--follow'], { home });
    expect(follow.code, follow.stderr).toBe(0);
    // Every tick exactly once and in order, including the ones printed while detached.
    const ticks = follow.stdout.split('\n').filter((l) => l.startsWith('tick '));
    expect(ticks).toEqual(Array.from({ length: 40 }, (_, i) => `tick ${i + 1}`));
    const after = await statusOf(home);
    expect(after.runs[0]).toMatchObject({
      status: 'completed',
      detached: false,
      nodes: [{ stage: 'destroyed', jobPhase: 'done' }],
    });
    expect(existsSync(join(home, 'runs', runId, 'node-0', 'outputs', 'out', 'ticks.txt'))).toBe(
      true,
    );
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('SIGTERM (a closed terminal, a timeout wrapper) detaches cleanly instead of dying mid-write', async () => {
    const { home, root } = newHome();
    const marker = `mk-term-${Date.now()}`;
    const job = tickerJob(root, { ticks: 600, intervalS: 0.1, marker });
    const p = new CliProcess(['run', job], { home });
    await p.waitFor('stdout', /tick 2\n/);
    p.child.kill('SIGTERM');
    const r = await p.exited;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/terminated: detaching/);
    const s = await statusOf(home);
    expect(s.runs[0]).toMatchObject({ status: 'running', detached: true });
    expect(processesMentioning(marker).length).toBeGreaterThan(0);
    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('`tender run --detach` returns once the job runs; `tender down --all` tears it down', async () => {
    const { home, root } = newHome();
    const marker = `mk-flag-${Date.now()}`;
    const job = tickerJob(root, { ticks: 600, intervalS: 0.1, marker });
    const r = await runCli(['run', job, '--detach'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(processesMentioning(marker).length).toBeGreaterThan(0);
    const down = await runCli(['down', '--all', '--json'], { home });
    expect(down.code, down.stderr).toBe(0);
    const report = JSON.parse(down.stdout.trim().split('\n').pop()!) as {
      allConfirmed: boolean;
      outcomes: unknown[];
    };
    expect(report).toMatchObject({ allConfirmed: true });
    expect(report.outcomes).toHaveLength(1);
    expect(processesMentioning(marker)).toEqual([]);
    expect(readdirSync(join(home, 'local', 'leases'))).toEqual([]);
  });
});
