// The dead-man switch on a RunPod pod (the faithful fake, real sshd nodes, the built agent):
// nobody is there when the job ends, and past the grace the node terminates its own pod with
// the pod-scoped RUNPOD_API_KEY from its environment — never the account key.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runpodSetup } from '../helpers/runpod-core';
import { until } from '../helpers/wait';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GRACE_MS = 1_500;

describe('dead-man switch on RunPod', () => {
  it('a node nobody collects from terminates its own pod with the pod key', async () => {
    const v = await runpodSetup();
    cleanups.push(() => v.close());
    const started = await v.core.client.invoke('run.start', {
      job: {
        name: 'unattended',
        run: 'echo training; mkdir -p out; echo 42 > out/result.txt',
        outputs: ['out/result.txt'],
        workspace: { workdir: v.work, exclude: [] },
      },
      pool: { provider: 'runpod', count: 1, gpu: 'RTX 4090' },
      keep: false,
      policy: { unreachableGraceMs: GRACE_MS, collectGraceMs: GRACE_MS },
    });
    if (!started.ok) throw new Error(started.error.message);
    await v.core.waitJobsStarted(started.value.id);
    // Read while the pod is up: once it terminates itself, its node and files are removed.
    const [booted] = v.fake.state.pods();
    const podEnv = readFileSync(booted!.node.envFile, 'utf8');
    const detached = await v.core.client.invoke('run.detach', { runId: started.value.id });
    if (!detached.ok) throw new Error(detached.error.message);
    await v.core.close(); // nobody is there when the job ends

    await until(() => v.fake.state.pods()[0]!.desiredStatus === 'TERMINATED', 60_000);

    expect(v.fake.state.pods()[0]!.terminatedBy).toBe('pod');
    expect(v.fake.state.livePods()).toEqual([]);
    const terminate = v.fake.state.calls().filter((c) => c.fields.includes('podTerminate'));
    expect(terminate.map((c) => [c.key, c.keyPodId, c.status])).toEqual([['pod', booted!.id, 200]]);
    // The node had its pod key only; the account key never left the app.
    expect(podEnv).toContain(`RUNPOD_API_KEY=${booted!.apiKey}`);
    expect(podEnv).not.toContain(v.fake.apiKey);
    expect(
      v.fake.state
        .calls()
        .filter((c) => c.key === 'pod')
        .every((c) => c.keyPodId === booted!.id),
    ).toBe(true);
  });
});
