// A training run whose machine is taken away after several checkpoint pulls, on the Vast.ai
// and RunPod fakes (real sshd nodes) and the local provider (real agent processes): the
// job writes its step every second, checkpoints are pulled every 5 s, and after two pulls
// have landed the machine goes. Attempt 2 must resume from the last pulled step — restored
// before any pull of its own, so no empty pull of the new node can replace the only copy.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { checkpointStore } from '../../src-main/jobs/checkpoints/checkpoint-transfer';
import { useLocalHomes } from '../helpers/local-cores';
import { runpodSetup } from '../helpers/runpod-core';
import { vastSetup } from '../helpers/vast-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const localHome = useLocalHomes('tender-ckpt-recovery-');

async function lines(core: TenderCore, runId: string, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId, channel, limit: 100_000 });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

async function waitForCount(core: TenderCore, runId: string, pattern: RegExp, n: number) {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    if ((await lines(core, runId, 'events')).filter((l) => pattern.test(l)).length >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${n} events matching ${pattern}`);
}

/** Counts steps from the last checkpoint, one a second, until the machine goes; a
 *  resumed attempt says where it starts and ends. */
const training = (work: string, recoverOn: string): JobSpecInput => ({
  name: 'training',
  run: [
    'echo "attempt $TENDER_ATTEMPT"',
    's=$(cat ckpt/step 2>/dev/null || echo 0)',
    'echo "resumed from step $s"',
    'if [ "$TENDER_ATTEMPT" != 0 ]; then exit 0; fi',
    'mkdir -p ckpt',
    'while :; do s=$((s+1)); echo $s > .step && mv .step ckpt/step; sleep 1; done',
  ].join('; '),
  checkpoints: 'ckpt/',
  checkpoint_every_s: 5,
  recovery: { max_restarts: 1, on: [recoverOn] },
  workspace: { workdir: work, exclude: [] },
});

/** Two pulls landed, the machine taken away, the run waited for: what it shows. */
async function takenAwayAfterTwoPulls(
  core: TenderCore,
  runId: string,
  takeAway: () => Promise<void>,
) {
  await waitForCount(core, runId, /^checkpoints pulled: 1 file/, 2);
  await takeAway();
  const ended = await Promise.race([
    core.waitRun(runId).then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 50_000)),
  ]);
  const events = await lines(core, runId, 'events');
  if (!ended) throw new Error(events.join('\n'));
  const run = core.runView(runId);
  expect(run.status, `${run.failedReason}\n${events.join('\n')}`).toBe('completed');
  const job = await lines(core, runId, 'agent');
  const resumed = job.filter((l) => l.startsWith('resumed from step '));
  expect(resumed[0]).toBe('resumed from step 0');
  const step = Number(resumed[1]?.slice('resumed from step '.length));
  expect(step, job.join('\n')).toBeGreaterThanOrEqual(5);
  // Attempt 2 restored before any pull of its own, from attempt 1's last landed pull.
  const recovery = events.findIndex((l) => l.startsWith('── attempt 2 after'));
  const restored = events.findIndex((l) => l.startsWith('checkpoints restored into ckpt/'));
  expect(restored, events.join('\n')).toBeGreaterThan(recovery);
  expect(events[restored]).toMatch(/from attempt 1's pull at \d\d:\d\d:\d\d: 1 file, /);
  const between = events.slice(recovery, restored);
  expect(between.filter((l) => l.startsWith('checkpoints pulled'))).toEqual([]);
  // The copy kept now holds the step attempt 2 resumed from.
  const source = checkpointStore(join(run.outputsDir, 'node-0', 'outputs')).restoreSource();
  expect(readFileSync(join(source!.dir, 'ckpt', 'step'), 'utf8').trim()).toBe(String(step));
}

describe('a recovered run resumes from its last pulled checkpoint', () => {
  it('Vast.ai: the instance exits after two pulls', async () => {
    const v = await vastSetup({ timing: { reconcileEveryMs: 200 } });
    cleanups.push(() => v.close());
    const started = await v.core.client.invoke('run.start', {
      job: training(v.work, 'node_lost'),
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await takenAwayAfterTwoPulls(v.core, started.value.id, async () => {
      const [first] = v.fake.state.liveInstances();
      await v.fake.faults.setStatus(first!.id, 'exited', 'host went away');
    });
    expect(v.fake.state.liveInstances()).toEqual([]);
  });

  it('RunPod: the interruptible pod is taken back after two pulls', async () => {
    const v = await runpodSetup({ timing: { reconcileEveryMs: 200 } });
    cleanups.push(() => v.close());
    const started = await v.core.client.invoke('run.start', {
      job: training(v.work, 'preempted'),
      pool: { provider: 'runpod', count: 1, gpu: 'RTX 4090', interruptible: true },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await takenAwayAfterTwoPulls(v.core, started.value.id, async () => {
      const [first] = v.fake.state.livePods();
      await v.fake.faults.preempt(first!.id);
    });
    expect(v.fake.state.livePods()).toEqual([]);
  });

  it('local: the machine and its lease folder go after two pulls', async () => {
    const h = localHome();
    const core = h.open();
    const started = await core.client.invoke('run.start', {
      job: training(h.work, 'node_lost'),
      pool: { provider: 'local', count: 1, verify: [] },
    });
    if (!started.ok) throw new Error(started.error.message);
    await takenAwayAfterTwoPulls(core, started.value.id, async () => {
      const label = core.ledger.nodesOfRun(started.value.id)[0]!.label;
      execFileSync('pkill', ['-KILL', '-f', label]);
      rmSync(join(h.home, 'local', 'leases', label), { recursive: true, force: true });
    });
  });
});
