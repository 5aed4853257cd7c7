// An interruptible RunPod pod taken back mid-run (the fake's preempt: EXITED, its processes
// killed, still listed): the reconciler lists it `outbid`, the job recovers per `[recovery]`
// (`preempted`) — the taken pod is terminated, attempt 2 runs on a new pod from the
// checkpoint pulled before, and completes. Two pods in all, none left.
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runpodSetup } from '../helpers/runpod-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function lines(core: TenderCore, runId: string, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId, channel, limit: 100_000 });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

async function waitFor(core: TenderCore, runId: string, pattern: RegExp): Promise<void> {
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    if ((await lines(core, runId, 'events')).some((l) => pattern.test(l))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no event matching ${pattern}`);
}

describe('recovery on RunPod', () => {
  it('an interruptible pod preempted mid-run: attempt 2 on a new pod resumes from the checkpoint; two pods in all, none left', async () => {
    const v = await runpodSetup({ timing: { reconcileEveryMs: 200 } });
    cleanups.push(() => v.close());
    const started = await v.core.client.invoke('run.start', {
      job: {
        name: 'resumable',
        run: [
          'echo "attempt $TENDER_ATTEMPT resume=${TENDER_RESUME:-0}"',
          'if [ -f ckpt/step ]; then echo "resumed from step $(cat ckpt/step)"; exit 0; fi',
          'mkdir -p ckpt && echo 7 > ckpt/step && sleep 600',
        ].join('; '),
        checkpoints: 'ckpt/',
        checkpoint_every_s: 5,
        recovery: { max_restarts: 1, on: ['preempted'] },
        workspace: { workdir: v.work, exclude: [] },
      },
      pool: { provider: 'runpod', count: 1, gpu: 'RTX 4090', interruptible: true },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await waitFor(v.core, runId, /^checkpoints pulled: 1 file/);
    const [first] = v.fake.state.livePods();
    // Rented as a bid at the lowest community bid + 10%.
    expect(first).toMatchObject({ interruptible: true, bidPerGpu: 0.22, cloudType: 'COMMUNITY' });

    await v.fake.faults.preempt(first!.id);
    const ended = await Promise.race([
      v.core.waitRun(runId).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 40_000)),
    ]);
    if (!ended) throw new Error((await lines(v.core, runId, 'events')).join('\n'));

    const run = v.core.runView(runId);
    const events = (await lines(v.core, runId, 'events')).join('\n');
    expect(run.status, `${run.failedReason}\n${events}`).toBe('completed');
    expect(await lines(v.core, runId, 'agent')).toEqual(
      expect.arrayContaining(['attempt 0 resume=0', 'attempt 1 resume=1', 'resumed from step 7']),
    );
    expect(events).toMatch(/outbid/);
    expect(events).toMatch(/checkpoints restored into ckpt\//);
    const pods = v.fake.state.pods();
    expect(pods).toHaveLength(2);
    expect(pods[0]!.exitedBy).toBe('preempt');
    expect(v.fake.state.livePods()).toEqual([]);
    // The taken pod was terminated before the second was created.
    expect(pods[0]!.terminatedAt!).toBeLessThanOrEqual(pods[1]!.createdAt);
  });

  it('without `preempted` in [recovery], a preempted pod is not replaced', async () => {
    const v = await runpodSetup({ timing: { reconcileEveryMs: 200 } });
    cleanups.push(() => v.close());
    const started = await v.core.client.invoke('run.start', {
      job: { name: 'no-recovery', run: 'sleep 600', workspace: { workdir: v.work, exclude: [] } },
      pool: { provider: 'runpod', count: 1, gpu: 'RTX 4090', interruptible: true },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await v.core.waitJobsStarted(started.value.id);
    const [pod] = v.fake.state.livePods();
    await v.fake.faults.preempt(pod!.id);
    // The reconciler marks it outbid; no second pod is rented for it.
    for (const end = Date.now() + 20_000; Date.now() < end;) {
      const lease = v.core.ledger.listLeases()[0];
      if (lease?.interruption === 'outbid') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(v.core.ledger.listLeases()[0]?.interruption).toBe('outbid');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(v.fake.state.pods()).toHaveLength(1);
    expect(v.core.runView(started.value.id).status).not.toBe('completed');
  });
});
