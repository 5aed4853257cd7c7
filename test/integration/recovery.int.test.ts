// Recovery on the local provider (real agent processes, a real ledger): a node proved lost
// or a run exit listed in [recovery] starts a new attempt on a new node — the old lease
// destroyed first — which resumes from the checkpoints pulled from the one before.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runToEnd, useLocalHomes } from '../helpers/local-cores';
import { eventuallyAsync, until } from '../helpers/wait';

const localHome = useLocalHomes('tender-recovery-');

/** A home with its writer core open. */
function setup() {
  const h = localHome();
  return { home: h.home, work: h.work, core: h.open() };
}

async function lines(core: TenderCore, runId: string, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId, channel, limit: 100_000 });
  return out.ok ? out.value.records : [];
}

/** The pids of the app's `attach` processes to the node's agent: its link. */
function attachPids(label: string): number[] {
  const r = spawnSync('pgrep', ['-f', `attach --dir .*${label}`], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // it ended by itself meanwhile
  }
}

/** Step 1 writes a checkpoint and dies with 137 (as an OOM kill would); a resumed attempt
 *  reads it back and finishes. */
const resumable = (work: string, extra: Partial<JobSpecInput> = {}): JobSpecInput => ({
  name: 'resumable',
  run: [
    'echo "attempt $TENDER_ATTEMPT resume=${TENDER_RESUME:-0}"',
    'if [ -f ckpt/step ]; then echo "resumed from step $(cat ckpt/step)"; echo done > out.txt; exit 0; fi',
    'mkdir -p ckpt && echo 41 > ckpt/step && exit 137',
  ].join('; '),
  checkpoints: 'ckpt/',
  outputs: ['out.txt'],
  workspace: { workdir: work, exclude: [] },
  ...extra,
});

const pool = { provider: 'local', count: 1, verify: [] };

describe('recovery', () => {
  it('exit 137 listed in [recovery]: attempt 2 on a new node resumes from the checkpoint and completes', async () => {
    const { core, work } = setup();
    const run = await runToEnd(core, {
      job: resumable(work, { recovery: { max_restarts: 2, on: ['exit_code:137'] } }),
      pool,
    });
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const job = (await lines(core, run.id, 'agent'))
      .filter((r) => r.source === 'run')
      .map((r) => r.line);
    expect(job).toEqual(['attempt 0 resume=0', 'attempt 1 resume=1', 'resumed from step 41']);
    const events = (await lines(core, run.id, 'events')).map((r) => r.line).join('\n');
    expect(events).toMatch(/── attempt 2 after run exited 137: .* is destroyed \(confirmed\)/);
    expect(events).toMatch(/checkpoints restored into ckpt\//);
    // Two leases, both destroyed, the first before the second was requested.
    const leases = core.ledger.leasesOfRun(run.id);
    expect(leases.map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    expect(leases[0]!.destroyedAt!).toBeLessThanOrEqual(leases[1]!.requestedAt);
    expect(readFileSync(join(run.outputsDir, 'node-0', 'outputs', 'out.txt'), 'utf8')).toBe(
      'done\n',
    );
    expect(core.ledger.getAttempt(run.nodes[0]!.id)?.attempt).toBe(1);
  });

  it('without [recovery] the same exit fails the run', async () => {
    const { core, work } = setup();
    const run = await runToEnd(core, { job: resumable(work), pool });
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/run exited 137/);
    expect(core.ledger.leasesOfRun(run.id)).toHaveLength(1);
  });

  it('max_restarts exhausted: the run fails, every lease destroyed, the reasons listed', async () => {
    const { core, work } = setup();
    const run = await runToEnd(core, {
      job: {
        name: 'always-oom',
        run: 'exit 137',
        workspace: { workdir: work, exclude: [] },
        recovery: { max_restarts: 1, on: ['exit_code:137'] },
      },
      pool,
    });
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/run exited 137/);
    const leases = core.ledger.leasesOfRun(run.id);
    expect(leases.map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    const events = (await lines(core, run.id, 'events')).map((r) => r.line).join('\n');
    expect(events).toMatch(/attempt 2 after run exited 137/);
  });

  it('a node proved lost mid-run (its lease gone) is recovered on node_lost', async () => {
    const { core, work, home } = setup();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'lost',
        run: 'echo "attempt $TENDER_ATTEMPT"; if [ "$TENDER_ATTEMPT" = 0 ]; then sleep 60; fi',
        workspace: { workdir: work, exclude: [] },
        recovery: { max_restarts: 1, on: ['node_lost'] },
      },
      pool,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitJobsStarted(started.value.id);
    // Mid-run: the first attempt has said so (and that line has arrived) before the machine
    // goes away, its agent and its lease folder with it.
    for (const end = Date.now() + 30_000; Date.now() < end;) {
      const said = (await lines(core, started.value.id, 'agent')).some(
        (r) => r.line === 'attempt 0',
      );
      if (said) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const label = core.ledger.nodesOfRun(started.value.id)[0]!.label;
    execFileSync('pkill', ['-KILL', '-f', label]);
    rmSync(join(home, 'local', 'leases', label), { recursive: true, force: true });
    await core.waitRun(started.value.id);
    const v = await core.client.invoke('run.get', { runId: started.value.id });
    if (!v.ok) throw new Error(v.error.message);
    const ev = (await lines(core, started.value.id, 'events')).map((r) => r.line);
    expect(v.value.status, `${v.value.failedReason}\n${ev.join('\n')}`).toBe('completed');
    const job = (await lines(core, started.value.id, 'agent'))
      .filter((r) => r.source === 'run')
      .map((r) => r.line);
    expect(job).toEqual(['attempt 0', 'attempt 1']);
  });

  it('5 link cuts during a healthy run cause zero recoveries', async () => {
    const h = localHome();
    const core = h.open();
    // The job runs until the test has cut the link five times, each cut seen and the link
    // restored before the next: no cut can fall after the job ended or between reconnects.
    const release = join(h.root, 'release');
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'healthy',
        run: `i=0; until [ -e '${release}' ]; do i=$((i+1)); echo "tick $i"; sleep 0.2; done; echo finished`,
        workspace: { workdir: h.work, exclude: [] },
        recovery: { max_restarts: 3, on: ['node_lost'] },
      },
      pool,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await core.waitJobsStarted(runId);
    const label = core.ledger.nodesOfRun(runId)[0]!.label;
    const events = async () => (await lines(core, runId, 'events')).map((r) => r.line);
    for (let i = 1; i <= 5; i++) {
      const cut = await until(() => attachPids(label).length > 0 && attachPids(label));
      for (const pid of cut) tryKill(pid);
      await eventuallyAsync(
        async () => (await events()).filter((l) => l.startsWith('link restored')).length >= i,
      );
    }
    writeFileSync(release, '');
    await core.waitRun(runId);
    const v = await core.client.invoke('run.get', { runId });
    if (!v.ok) throw new Error(v.error.message);
    expect(v.value.status, v.value.failedReason ?? '').toBe('completed');
    expect(core.ledger.leasesOfRun(runId)).toHaveLength(1);
    expect(core.ledger.getAttempt(v.value.nodes[0]!.id)?.attempt).toBe(0);
    // One run of the job, its output whole: every tick once, in order, then its end.
    const job = (await lines(core, runId, 'agent'))
      .filter((r) => r.source === 'run')
      .map((r) => r.line);
    const ticks = job.length - 1;
    expect(job).toEqual([...Array.from({ length: ticks }, (_, k) => `tick ${k + 1}`), 'finished']);
    const all = await events();
    expect(all.filter((l) => l.startsWith('link lost'))).toHaveLength(5);
    expect(all.filter((l) => l.startsWith('link restored'))).toHaveLength(5);
  });
});
