// The inner loop from the command line: `tender run --keep`, edit, `tender rerun` on the
// warm node; and kill -9 inside the claim — the warm node is claimed or free, never both.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

interface Status {
  runs: {
    id: string;
    status: string;
    detached: boolean;
    nodes: { stage: string; leaseId: string | null; claimedFrom?: { runId: string } | null }[];
  }[];
  leases: { state: string; leaseId: string | null; servedRuns?: string[]; warm?: unknown }[];
  orphans: unknown[];
}

async function status(home: string): Promise<Status> {
  const r = await runCli(['status', '--json'], { home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const loopJob = (root: string) =>
  writeJob(
    root,
    'loop',
    `[job]
name = "loop"
setup = "echo installing; touch $TENDER_ENV/ok"
setup_fingerprint = ["requirements.txt"]
run = "test -f $TENDER_ENV/ok && cat model.py"
`,
    { 'model.py': 'lr = 1e-3\n', 'requirements.txt': 'numpy\n' },
  );

const live = (s: Status) => s.leases.filter((l) => l.state === 'created');

describe('warm nodes from the CLI', () => {
  it('run --keep, edit a file, rerun: the same node, setup skipped, the edit runs', async () => {
    const h = newHome();
    const job = loopJob(h.root);
    const first = await runCli(['run', job, '--keep', '--json'], { home: h.home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toContain('installing');
    const firstId = (JSON.parse(first.stdout.trim().split('\n').pop()!) as { runId: string }).runId;

    const warm = await runCli(['status'], { home: h.home });
    expect(warm.stdout).toMatch(/1 warm node\(s\)/);
    expect(warm.stdout).toMatch(/IDLE ENDS IN/);

    writeFileSync(join(h.root, 'loop', 'model.py'), 'lr = 3e-4\n');
    const again = await runCli(['rerun', firstId, '--json'], { home: h.home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('lr = 3e-4');
    // The setup's own line is not there (the skip note quotes its command, so look at lines).
    expect(again.stdout.split('\n')).not.toContain('installing');
    expect(again.stderr).toContain('setup skipped');
    expect(again.stderr).toMatch(/reusing warm node/);

    const s = await status(h.home);
    expect(live(s)).toHaveLength(1);
    expect(live(s)[0]!.servedRuns).toHaveLength(2);
    const down = await runCli(['down', '--all'], { home: h.home });
    expect(down.code, down.stderr).toBe(0);
    expect(live(await status(h.home))).toEqual([]);
  });

  it('--new-node rents anew even with a warm node there', async () => {
    const h = newHome();
    const job = loopJob(h.root);
    expect((await runCli(['run', job, '--keep'], { home: h.home })).code).toBe(0);
    const fresh = await runCli(['run', job, '--new-node'], { home: h.home });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).not.toMatch(/reusing warm node/);
    // Its own lease, destroyed at its end; the warm one is still there.
    const s = await status(h.home);
    expect(s.leases.map((l) => l.state).sort()).toEqual(['created', 'destroyed']);
    await runCli(['down', '--all'], { home: h.home });
  });

  it('rerun of an unknown run says where to look', async () => {
    const h = newHome();
    const r = await runCli(['rerun', 'r-nope'], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no run r-nope/);
  });

  for (const at of ['warm-claim', 'after-warm-claim'] as const) {
    it(`kill -9 at ${at}: the warm node is claimed or free, never both, and never lost`, async () => {
      const h = newHome();
      const job = loopJob(h.root);
      expect((await runCli(['run', job, '--keep'], { home: h.home })).code).toBe(0);
      const crashed = await runCli(['run', job, '--keep'], {
        home: h.home,
        env: { TENDER_TEST_CRASH_AT: at },
      });
      expect(crashed.signal, crashed.stderr).toBe('SIGKILL');

      const after = await status(h.home);
      expect(live(after)).toHaveLength(1); // one lease, still known, not duplicated
      expect(after.orphans).toEqual([]);
      if (at === 'warm-claim') {
        // Rolled back: no second run, the first run's node still holds the lease, free.
        expect(after.runs).toHaveLength(1);
        expect(after.runs[0]!.nodes[0]!.stage).toBe('dormant');
        expect(live(after)[0]!.warm).toBeTruthy();
      } else {
        // Committed: the second run holds the node (left detached by the crash).
        expect(after.runs).toHaveLength(2);
        const [second, first] = after.runs;
        expect(first!.nodes[0]!.stage).toBe('released');
        expect(second!.nodes[0]!.claimedFrom?.runId).toBe(first!.id);
        expect(live(after)[0]!.warm ?? null).toBeNull();
      }
      const down = await runCli(['down', '--all', '--json'], { home: h.home });
      expect(down.code, down.stderr).toBe(0);
      const report = JSON.parse(down.stdout.trim().split('\n').pop()!) as {
        allConfirmed: boolean;
        outcomes: unknown[];
      };
      expect(report.allConfirmed).toBe(true);
      expect(report.outcomes).toHaveLength(1); // destroyed once, by its one holder
      expect(live(await status(h.home))).toEqual([]);
    });
  }
});
