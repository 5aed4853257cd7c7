import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesMentioning, runCli, useTempHomes } from '../helpers/cli';
import { tickerJob, writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

interface Status {
  runs: { id: string; status: string; detached: boolean; nodes: { stage: string }[] }[];
  leases: { label: string; state: string; leaseId: string | null }[];
  orphans: unknown[];
}

async function status(home: string): Promise<Status> {
  const r = await runCli(['status', '--json'], { home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const leaseDirs = (home: string) => {
  const dir = join(home, 'local', 'leases');
  return existsSync(dir) ? readdirSync(dir) : [];
};

// Each effect boundary of a run: where the process dies, what the ledger may show after a
// restart, and what `tender down --all` must leave behind.
const points: { at: string; live: string[]; dirs: number; jobAlive: boolean; finally: string }[] = [
  {
    at: 'before-create-call',
    live: ['requested'],
    dirs: 0,
    jobAlive: false,
    finally: 'not_created',
  },
  // The create happened but was never recorded: the next Tender adopts it by its label.
  { at: 'after-create-call', live: ['created'], dirs: 1, jobAlive: false, finally: 'destroyed' },
  { at: 'job-running', live: ['created'], dirs: 1, jobAlive: true, finally: 'destroyed' },
  // The status's reconcile hands a destroy left half-done (the lease still listed) back to
  // its destroy, which may end before the status prints: destroyed, confirmed, is as right.
  {
    at: 'before-destroy-call',
    live: ['destroying', 'destroyed'],
    dirs: 1,
    jobAlive: false,
    finally: 'destroyed',
  },
  {
    at: 'after-destroy-call',
    live: ['destroying'],
    dirs: 0,
    jobAlive: false,
    finally: 'destroyed',
  },
];

describe('kill -9 of tender run at each effect boundary', () => {
  for (const p of points) {
    it(`${p.at}: no lease lost, none duplicated; down --all destroys what was left`, async () => {
      const h = newHome();
      const marker = `mk-crash-${p.at}-${Date.now()}`;
      const job =
        p.at === 'job-running'
          ? tickerJob(h.root, { ticks: 600, intervalS: 0.1, marker })
          : writeJob(h.root, 'quick', `[job]\nname = "quick"\nrun = "echo done # ${marker}"\n`);

      const crashed = await runCli(['run', job], {
        home: h.home,
        env: { TENDER_TEST_CRASH_AT: p.at },
      });
      expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
      expect(leaseDirs(h.home)).toHaveLength(p.dirs);
      expect(processesMentioning(marker).length > 0).toBe(p.jobAlive);

      // A fresh process sees exactly one lease for the one node, still counted as live,
      // and no orphan: the intent was recorded before the provider was called.
      const after = await status(h.home);
      expect(after.leases).toHaveLength(1);
      expect(p.live).toContain(after.leases[0]!.state);
      expect(after.orphans).toEqual([]);
      expect(after.runs[0]).toMatchObject({ detached: true });

      const down = await runCli(['down', '--all', '--json'], { home: h.home });
      expect(down.code, down.stderr).toBe(0);
      const report = JSON.parse(down.stdout.trim().split('\n').pop()!) as {
        allConfirmed: boolean;
        outcomes: unknown[];
      };
      expect(report.allConfirmed).toBe(true);
      // One lease to destroy, unless the status's reconcile already destroyed it (above).
      expect(report.outcomes.length).toBeLessThanOrEqual(1);
      if (p.live.length === 1) expect(report.outcomes).toHaveLength(1);

      expect(leaseDirs(h.home)).toEqual([]);
      expect(processesMentioning(marker)).toEqual([]);
      const end = await status(h.home);
      expect(end.leases.map((l) => l.state)).toEqual([p.finally]);
      expect(end.runs[0]).toMatchObject({
        status: 'failed',
        detached: false,
        nodes: [{ stage: 'destroyed' }],
      });
    });
  }

  it('a run whose driver was killed mid-job is picked up by `tender logs --follow` and finishes', async () => {
    const h = newHome();
    const marker = `mk-resume-${Date.now()}`;
    const job = tickerJob(h.root, { ticks: 30, intervalS: 0.1, marker });
    const crashed = await runCli(['run', job], {
      home: h.home,
      env: { TENDER_TEST_CRASH_AT: 'job-running' },
    });
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await status(h.home)).runs[0]!.id;

    const follow = await runCli(['logs', runId, '--follow'], { home: h.home });
    expect(follow.code, follow.stderr).toBe(0);
    const ticks = follow.stdout.split('\n').filter((l) => l.startsWith('tick '));
    expect(ticks).toEqual(Array.from({ length: 30 }, (_, i) => `tick ${i + 1}`));
    const end = await status(h.home);
    expect(end.runs[0]).toMatchObject({ status: 'completed', nodes: [{ stage: 'destroyed' }] });
    expect(end.leases.map((l) => l.state)).toEqual(['destroyed']);
    expect(existsSync(join(h.home, 'runs', runId, 'node-0', 'outputs', 'out', 'ticks.txt'))).toBe(
      true,
    );
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('a crashed run does not block the next one, and the next one leases exactly one node', async () => {
    const h = newHome();
    const job = writeJob(h.root, 'quick', `[job]\nname = "quick"\nrun = "echo done"\n`);
    const crashed = await runCli(['run', job], {
      home: h.home,
      env: { TENDER_TEST_CRASH_AT: 'after-create-call' },
    });
    expect(crashed.signal).toBe('SIGKILL');
    const next = await runCli(['run', job], { home: h.home });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('done');
    const s = await status(h.home);
    expect(s.runs).toHaveLength(2);
    // The crashed run's lease was adopted (still live, listed); the new run's is destroyed.
    expect(s.leases.map((l) => l.state).sort()).toEqual(['created', 'destroyed']);
    expect(leaseDirs(h.home)).toHaveLength(1);
  });
});
