// Capability constraints at join (contract/constraint.ts), with real agents: on the local
// provider a node that fails one never joins and the run fails naming it; on the Vast fake
// (real sshd nodes, no GPUs) each node that fails is a failed boot — destroyed, confirmed,
// its host remembered — and another is tried until the boot attempts are spent.
import { describe, expect, it } from 'vitest';
import { runView as view, useLocalHomes } from '../helpers/local-cores';
import { vastSetups } from '../helpers/vast-setups';

const setup = useLocalHomes('tender-constraints-');
const vast = vastSetups();

describe('constraints at join', () => {
  it('a node that meets them runs the job; one that does not never joins, and the run says which', async () => {
    const { open, work } = setup();
    const core = open();
    const run = async (constraints: string[]) => {
      const started = await core.client.invoke('run.start', {
        job: { name: 'c', run: 'echo ran', constraints, workspace: { workdir: work, exclude: [] } },
        pool: { provider: 'local', count: 1, verify: [] },
      });
      if (!started.ok) throw new Error(started.error.message);
      await core.waitRun(started.value.id);
      return view(core, started.value.id);
    };
    const ok = await run([
      'os == linux',
      'mem.total >= 64MB',
      'cpu.cores >= 1',
      'node.version >= 18',
      'python.version >= 3',
    ]);
    expect(ok.status, ok.failedReason ?? '').toBe('completed');

    const refused = await run(['os == linux', 'gpu.vram >= 24GB']);
    expect(refused.status).toBe('failed');
    expect(refused.failedReason).toMatch(
      /does not meet the job's constraints: gpu\.vram >= 24GB \(the node has no gpu\.vram\)/,
    );
    expect(refused.nodes[0]!.stage).toBe('destroyed');
  });

  it('on Vast.ai the offers are filtered first: a constraint no offer meets rents nothing and is named', async () => {
    const { core, fake, work } = await vast();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'big',
        run: 'true',
        constraints: ['gpu.count >= 1', 'gpu.vram >= 200GB'],
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const run = await view(core, started.value.id);
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(
      /no Vast\.ai offer of this pool meets the constraint "gpu\.vram >= 200GB"/,
    );
    expect(fake.state.instances()).toEqual([]); // nothing was rented
  });

  it('on Vast.ai each node that fails is a failed boot: destroyed, confirmed, its host remembered, another tried', async () => {
    const { core, fake, work } = await vast();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'gpu',
        run: 'nvidia-smi',
        constraints: ['gpu.count >= 1'],
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const run = await view(core, started.value.id);
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/gpu\.count >= 1 \(the node has no gpu\.count\)/);
    const instances = fake.state.instances();
    expect(instances.length).toBeGreaterThan(1); // another was tried
    expect(new Set(instances.map((i) => i.offerId)).size).toBe(instances.length); // elsewhere each time
    expect(fake.state.liveInstances()).toEqual([]);
    const failures = core.ledger
      .journal(started.value.id)
      .filter((e) => e.kind === 'lease.boot_failed');
    expect(failures).toHaveLength(instances.length - 1); // each one replaced; the last ends the run
  });
});
