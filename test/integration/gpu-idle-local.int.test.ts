// The GPU idle rule end to end on the local provider: a fake nvidia-smi first on PATH (the
// node's agent inherits it) reports idle GPUs; the run's `[policy] gpu_idle` reaches the
// node's agent, which acts by itself. `stop` fails the run with the rule as its reason
// (outputs collected, node torn down); `notify` lets the job finish, and its firing reaches
// the ledger even when nobody was connected, at the next look. Build first: `npm run build`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandInput, GpuIdleRule } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { writeFakeNvidiaSmi } from '../helpers/fake-nvidia-smi';
import { runView, useLocalHomes } from '../helpers/local-cores';
import { until } from '../helpers/wait';

const setup = useLocalHomes('tender-gpu-idle-');
let bin: string;

beforeAll(() => {
  // This file's worker only: the local node's agent starts with this PATH.
  const idle = '0, 2, 4, 81920\n'; // an A100 at 2%
  bin = writeFakeNvidiaSmi(mkdtempSync(join(tmpdir(), 'tender-gpu-idle-bin-')), idle);
  process.env.PATH = `${bin}:${process.env.PATH}`;
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const rule = (then: GpuIdleRule['then']): GpuIdleRule => ({ belowPct: 10, forMs: 1_000, then });

function input(work: string, run: string, gpuIdle: GpuIdleRule): CommandInput<'run.start'> {
  return {
    job: {
      name: 'idle',
      run,
      outputs: ['out/'],
      workspace: { workdir: work, exclude: [] },
    },
    pool: { provider: 'local', count: 1, verify: [] },
    keep: false,
    policy: { gpuIdle },
  };
}

function agentLines(core: TenderCore, runId: string): Promise<string[]> {
  return core.client
    .invoke('logs.read', { runId, channel: 'agent', limit: 100_000 })
    .then((r) =>
      r.ok ? r.value.records.filter((x) => x.source === 'agent').map((x) => x.line) : [],
    );
}

const firedRows = (core: TenderCore, runId: string) =>
  core.ledger.journal(runId).filter((e) => e.kind === 'gpu_idle.fired');

describe('GPU idle rule on the local provider', () => {
  it('stop: the node stops the job; the run fails with the rule, its outputs collected', async () => {
    const { open, work } = setup();
    const core = open();
    const started = await core.client.invoke(
      'run.start',
      input(work, 'mkdir -p out; echo partial > out/p.txt; sleep 600', rule('stop')),
    );
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await core.waitRun(runId);
    core.datastream.flush(); // the last batch of records is stored, so journaled (as `tender status` does)
    const v = await runView(core, runId);
    expect(v.status).toBe('failed');
    expect(v.failedReason).toMatch(
      /^node-0: GPU idle rule: every GPU under 10% for \d+(\.\d)?s while the job ran/,
    );
    expect(v.policy?.gpuIdle).toEqual(rule('stop'));
    expect(v.nodes[0]!.gpuIdleFired).toMatchObject({ did: 'stopped_job', rule: rule('stop') });
    expect(firedRows(core, runId)).toHaveLength(1);
    expect(readFileSync(join(v.outputsDir, 'node-0', 'outputs', 'out', 'p.txt'), 'utf8')).toBe(
      'partial\n',
    );
    expect(await agentLines(core, runId)).toContainEqual(
      expect.stringMatching(/^GPU idle rule: .*; stopping the job \(then = "stop"\)$/),
    );
  });

  it('teardown: the node fires its own dead-man switch; the ledger says why', async () => {
    const { open, work } = setup();
    const core = open();
    const started = await core.client.invoke(
      'run.start',
      input(work, 'echo started; sleep 600', rule('teardown')),
    );
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await core.waitRun(runId);
    core.datastream.flush();
    const v = await runView(core, runId);
    expect(v.status).toBe('failed');
    expect(v.nodes[0]!.stage).toBe('destroyed');
    expect(v.nodes[0]!.gpuIdleFired).toMatchObject({ did: 'tearing_down' });
    const selfTeardown = core.ledger.journal(runId).find((e) => e.kind === 'lease.self_teardown');
    expect(selfTeardown?.data).toMatchObject({
      cause: 'gpu_idle',
      reason: expect.stringMatching(/^GPU idle rule: every GPU under 10% for /),
    });
    expect(`${v.failedReason} ${v.nodes[0]!.destroyReason}`).toMatch(/GPU idle rule/);
  });

  it('stop in a sweep: each cell the node stops fails with the rule; the node serves the next', async () => {
    const { open, work } = setup();
    const core = open();
    const sweep = input(work, 'sleep 600', rule('stop'));
    const started = await core.client.invoke('run.start', {
      ...sweep,
      job: { ...sweep.job, sweep: { axes: { X: ['a', 'b'] } } },
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    core.datastream.flush();
    const v = await runView(core, started.value.id);
    expect(v.status).toBe('failed');
    expect(v.failedReason).toMatch(/^2 of 2 cells failed \(j0: GPU idle rule: every GPU under 10%/);
    expect(firedRows(core, v.id)).toHaveLength(2);
  });

  it('notify while nobody is connected: the job goes on; the next look journals the firing', async () => {
    const { open, close, work, root } = setup();
    const go = join(root, 'go');
    const core1 = open();
    // The job waits for the test to have seen the firing on the node: no race with its end.
    const started = await core1.client.invoke(
      'run.start',
      input(work, `while [ ! -f ${go} ]; do sleep 0.1; done; echo finished`, rule('notify')),
    );
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await core1.waitJobsStarted(runId);
    const dir = core1.ledger
      .nodesOfRun(runId)[0]!
      .agent!.address.dirWord.replace(/^['"]|['"]$/g, '');
    const detached = await core1.client.invoke('run.detach', { runId });
    if (!detached.ok) throw new Error(detached.error.message);
    await close(core1);
    const nodeLog = join(dir, 'logs', 'log.jsonl');
    await until(() => existsSync(nodeLog) && readFileSync(nodeLog, 'utf8').includes('"gpu_idle"'));

    const core2 = open();
    expect(firedRows(core2, runId)).toEqual([]); // nobody was connected when it fired
    const filled = await core2.client.invoke('logs.backfill', { runId });
    expect(filled.ok).toBe(true);
    await until(() => firedRows(core2, runId).length > 0);
    expect(firedRows(core2, runId)[0]!.data).toMatchObject({ did: 'notified' });
    expect((await runView(core2, runId)).nodes[0]!.gpuIdleFired).toMatchObject({
      did: 'notified',
    });
    writeFileSync(go, '');
    const due = await core2.client.invoke('run.collectDue', { all: true });
    expect(due.ok).toBe(true);
    await core2.waitRun(runId);
    core2.datastream.flush();
    const v = await runView(core2, runId);
    expect(v.status, v.failedReason ?? '').toBe('completed');
    expect(firedRows(core2, runId)).toHaveLength(1); // read again, journaled once
  });
});
