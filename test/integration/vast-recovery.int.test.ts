// Recovery on the Vast fake (real sshd nodes): the first instance is taken away mid-run
// (its host goes; the listing says exited): the job's lease is destroyed and confirmed
// gone, attempt 2 runs on another machine from the checkpoint pulled before, and
// completes. Exactly two instances were created; none is left live.
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { vastSetup } from '../helpers/vast-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function lines(core: TenderCore, runId: string, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId, channel, limit: 100_000 });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

async function waitFor(core: TenderCore, runId: string, pattern: RegExp): Promise<void> {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    if ((await lines(core, runId, 'events')).some((l) => pattern.test(l))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no event matching ${pattern}`);
}

describe('recovery on Vast.ai', () => {
  it('an instance that exits mid-run: attempt 2 on another machine resumes from the checkpoint; two instances in all, none left', async () => {
    const v = await vastSetup({ timing: { reconcileEveryMs: 200 } });
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
        recovery: { max_restarts: 1, on: ['node_lost'] },
        workspace: { workdir: v.work, exclude: [] },
      },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await waitFor(v.core, runId, /^checkpoints pulled: 1 file/);

    const [first] = v.fake.state.liveInstances();
    await v.fake.faults.setStatus(first!.id, 'exited', 'host went away');
    const ended = await Promise.race([
      v.core.waitRun(runId).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 40_000)),
    ]);
    if (!ended) throw new Error((await lines(v.core, runId, 'events')).join('\n'));

    const run = v.core.runView(runId);
    const events = (await lines(v.core, runId, 'events')).join('\n');
    expect(run.status, `${run.failedReason}\n${events}`).toBe('completed');
    const job = await lines(v.core, runId, 'agent');
    expect(job).toEqual(
      expect.arrayContaining(['attempt 0 resume=0', 'attempt 1 resume=1', 'resumed from step 7']),
    );
    expect(events).toMatch(/the provider says exited/);
    expect(events).toMatch(/checkpoints restored into ckpt\//);
    const instances = v.fake.state.instances();
    expect(instances).toHaveLength(2);
    expect(instances[1]!.offerId).not.toBe(instances[0]!.offerId);
    expect(v.fake.state.liveInstances()).toEqual([]);
    // The lost one was destroyed (confirmed) before the second was created.
    expect(instances[0]!.destroyedAt!).toBeLessThanOrEqual(instances[1]!.createdAt);
  });
});
