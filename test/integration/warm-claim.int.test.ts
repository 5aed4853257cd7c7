// Warm nodes on the local provider (real agent processes, a real SQLite ledger): a kept
// node serves the next run with the same host key — no create, no bootstrap, its own log
// — and each run is charged its own share; another key rents anew and says why.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandInput, JobSpecInput } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runToEnd, useLocalHomes } from '../helpers/local-cores';

const setup = useLocalHomes('tender-warm-');

const job = (work: string, extra: Partial<JobSpecInput> = {}): JobSpecInput => ({
  name: 'loop',
  run: 'echo "run $TENDER_JOB_ID"; cat hello.txt',
  workspace: { workdir: work, exclude: [] },
  ...extra,
});

async function lines(
  core: TenderCore,
  nodeId: string,
  channel: 'agent' | 'events',
): Promise<string[]> {
  const run = nodeId.slice(0, nodeId.indexOf('/'));
  const records = await core.datastream.read(run, { nodeId, channel, fromSeq: 1, limit: 100_000 });
  return records.map((r) => r.line);
}

const kept = (work: string, extra: Partial<JobSpecInput> = {}): CommandInput<'run.start'> => ({
  job: job(work, extra),
  pool: { provider: 'local', count: 1, verify: [] },
  keep: true,
});

describe('warm nodes (local provider)', () => {
  it('a second run claims the kept node: no create, no bootstrap, a log of its own', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, kept(work));
    expect(first.status).toBe('completed');
    expect(first.nodes[0]!.stage).toBe('dormant');

    writeFileSync(join(work, 'hello.txt'), 'edited\n');
    const second = await runToEnd(core, kept(work));
    expect(second.status).toBe('completed');
    const [a, b] = [first.nodes[0]!, second.nodes[0]!];
    expect(b.leaseId).toBe(a.leaseId);
    expect(b.claimedFrom).toEqual({ runId: first.id, nodeId: a.id });
    const steps = core.ledger
      .journal(second.id)
      .filter((e) => e.kind === 'node.step')
      .map((e) => String(e.data.to));
    expect(steps).not.toContain('lease_requested');
    expect(steps).not.toContain('bootstrap_running');
    // The second run's agent log holds its own lines, not the first run's.
    const out = await lines(core, b.id, 'agent');
    expect(out).toContain('edited');
    expect(out.some((l) => l.includes(`run ${first.id}.node-0`))).toBe(false);
    expect(out.some((l) => l.includes(`run ${second.id}.node-0`))).toBe(true);
    expect((await lines(core, b.id, 'events')).join('\n')).toMatch(
      /reusing warm node .*no bootstrap/,
    );

    // The first run's node passed its lease on; the ledger shows which runs it served.
    const firstAgain = await core.client.invoke('run.get', { runId: first.id });
    expect(firstAgain.ok && firstAgain.value.nodes[0]!.stage).toBe('released');
    expect(firstAgain.ok && firstAgain.value.nodes[0]!.releasedTo).toBe(b.id);
    const status = await core.client.invoke('status.get', {});
    if (!status.ok) throw new Error(status.error.message);
    const lease = status.value.leases.find((l) => l.leaseId === b.leaseId)!;
    expect(lease.servedRuns).toEqual([first.id, second.id]);
    expect(lease.runId).toBe(second.id);
    expect(lease.warm?.hostKey).toMatch(/^hk1_/);
    // One live lease, not two: teardown of everything destroys it once.
    expect(status.value.leases.filter((l) => l.state === 'created')).toHaveLength(1);
  });

  it('a new process claims the node a previous process kept (the ledger is the truth)', async () => {
    const { open, close, work } = setup();
    const core1 = open();
    const first = await runToEnd(core1, kept(work));
    await close(core1);
    const core2 = open();
    const second = await runToEnd(core2, kept(work));
    expect(second.status).toBe('completed');
    expect(second.nodes[0]!.leaseId).toBe(first.nodes[0]!.leaseId);
    expect(await lines(core2, second.nodes[0]!.id, 'agent')).toContain('hi');
  });

  it('another host key rents a new node and says why', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, kept(work));
    const second = await runToEnd(core, kept(work, { host_setup: ['true'] }));
    expect(second.nodes[0]!.leaseId).not.toBe(first.nodes[0]!.leaseId);
    expect(second.nodes[0]!.claimedFrom ?? null).toBeNull();
    expect((await lines(core, second.nodes[0]!.id, 'events')).join('\n')).toMatch(
      /renting a new node: warm node .* has hk1_\w+, this job needs hk1_\w+: host_setup differs/,
    );
  });

  it('reuseWarm false always rents', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, kept(work));
    const second = await runToEnd(core, { ...kept(work), reuseWarm: false });
    expect(second.nodes[0]!.leaseId).not.toBe(first.nodes[0]!.leaseId);
  });

  it('a node kept by a run that did not ask to keep it is not warm', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, { ...kept(work), keep: false });
    expect(first.nodes[0]!.stage).toBe('destroyed');
    const second = await runToEnd(core, kept(work));
    expect(second.nodes[0]!.claimedFrom ?? null).toBeNull();
  });

  it('a warm node that died while idle: the rerun destroys it (confirmed) and rents anew', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, kept(work));
    // The agent of the kept node dies (the machine went away while idle).
    execFileSync('pkill', ['-KILL', '-f', `${first.nodes[0]!.label}`]);
    const second = await runToEnd(core, kept(work));
    expect(second.status).toBe('completed');
    const n = second.nodes[0]!;
    expect(n.leaseId).not.toBe(first.nodes[0]!.leaseId);
    expect((await lines(core, n.id, 'events')).join('\n')).toMatch(
      /warm node .* does not answer.*: renting a new node/,
    );
  });

  it('two runs racing for one warm node: one claims it, the other rents', async () => {
    const { open, work } = setup();
    const core = open();
    const first = await runToEnd(core, kept(work));
    const [a, b] = await Promise.all([
      core.client.invoke('run.start', kept(work)),
      core.client.invoke('run.start', kept(work)),
    ]);
    if (!a.ok || !b.ok) throw new Error('a run did not start');
    await Promise.all([core.waitRun(a.value.id), core.waitRun(b.value.id)]);
    const views = await Promise.all(
      [a.value.id, b.value.id].map(async (runId) => {
        const v = await core.client.invoke('run.get', { runId });
        if (!v.ok) throw new Error(v.error.message);
        return v.value;
      }),
    );
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed']);
    const claimed = views.filter((v) => v.nodes[0]!.claimedFrom);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.nodes[0]!.leaseId).toBe(first.nodes[0]!.leaseId);
    const leases = views.map((v) => v.nodes[0]!.leaseId);
    expect(new Set(leases).size).toBe(2);
  });

  it('a setup that fails on a warm node leaves the node usable and the env unready', async () => {
    const { open, work } = setup();
    writeFileSync(join(work, 'requirements.txt'), 'torch\n');
    const core = open();
    const env = { setup_fingerprint: ['requirements.txt'] };
    const ok = await runToEnd(core, kept(work, { ...env, setup: 'echo build-1' }));
    expect(ok.status).toBe('completed');
    // A broken setup (a changed requirements file) fails its run; the node stays warm.
    writeFileSync(join(work, 'requirements.txt'), 'torch\nbroken\n');
    const bad = await runToEnd(core, kept(work, { ...env, setup: 'echo build-2; exit 3' }));
    expect(bad.status).toBe('failed');
    expect(bad.nodes[0]!.claimedFrom?.runId).toBe(ok.id);
    expect(bad.nodes[0]!.stage).toBe('dormant');
    // The next run claims it again and builds the environment (the failed one was not ready).
    const again = await runToEnd(core, kept(work, { ...env, setup: 'echo build-2; exit 3' }));
    expect(again.nodes[0]!.claimedFrom?.runId).toBe(bad.id);
    expect((await lines(core, again.nodes[0]!.id, 'agent')).join('\n')).toContain('build-2');
    const fixed = await runToEnd(core, kept(work, { ...env, setup: 'echo build-3' }));
    expect(fixed.status).toBe('completed');
    expect(fixed.nodes[0]!.claimedFrom?.runId).toBe(again.id);
  });

  it('a claimed node gives the next run a clean slate: no outputs of the run before', async () => {
    const { open, work } = setup();
    const core = open();
    const outputs = ['out/result.txt'];
    const first = await runToEnd(
      core,
      kept(work, {
        outputs,
        run: 'mkdir -p out && echo A > out/result.txt && echo A > "$TENDER_OUTPUT/extra.txt"',
      }),
    );
    expect(first.status).toBe('completed');
    const second = await runToEnd(core, kept(work, { outputs, run: 'ls out 2>/dev/null; true' }));
    expect(second.nodes[0]!.claimedFrom?.runId).toBe(first.id);
    const dir = join(second.outputsDir, 'node-0', 'outputs');
    expect(existsSync(join(dir, 'out', 'result.txt'))).toBe(false);
    expect(existsSync(join(dir, '_output', 'extra.txt'))).toBe(false);
    expect((await lines(core, second.nodes[0]!.id, 'events')).join('\n')).toMatch(
      /missing: out\/result.txt/,
    );
  });
});
