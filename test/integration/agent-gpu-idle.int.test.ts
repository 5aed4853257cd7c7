// The GPU idle rule on the built agent, as real processes, with a fake `nvidia-smi` first
// on the daemon's PATH printing nvidia-smi's real CSV shapes: with every GPU below the
// threshold for the (short) window while the run phase runs, `stop` stops the job as a
// cancel would, `notify` only records it, `teardown` fires the dead-man switch; a GPU at
// or above the threshold never triggers it. Build first: `npm run build:agent`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GPU_IDLE_LOG_SOURCE,
  type GpuIdleFiring,
  type GpuIdleRule,
  decodeGpuIdleFiring,
} from '../../src-agent/wire/gpu-idle';
import type { PhaseState, TeardownRecord } from '../../src-agent/wire/protocol';
import { type AttachClient, isGroupAlive } from '../helpers/agent-bundle';
import { type GpuAgent, useGpuAgents } from '../helpers/gpu-agent';
import { eventually } from '../helpers/wait';

const WINDOW_MS = 1_000; // `for = "1s"`: short, for a test; nodes use minutes
const IDLE = '0, 3, 4, 81920\n1, 0, 4, 81920\n'; // both GPUs below 10%
const gpuAgent = useGpuAgents('tender-gpu-idle-');

/** A daemon whose PATH starts with a fake nvidia-smi (the A100 fixture's probe and banner;
 *  `usage` as the sampler's reading, by default `IDLE`), configured with `rule`.
 *  `gpu: false`: no nvidia-smi. */
const startNode = (rule: GpuIdleRule, opts: { usage?: string; gpu?: boolean } = {}) =>
  gpuAgent({ ...opts, usage: opts.usage ?? IDLE, gpuIdle: rule });

function firings(c: AttachClient): GpuIdleFiring[] {
  return c
    .records()
    .filter((r) => r.src === GPU_IDLE_LOG_SOURCE)
    .map((r) => decodeGpuIdleFiring(r.line)!);
}
const agentLines = (c: AttachClient) =>
  c
    .records()
    .filter((r) => r.src === 'agent')
    .map((r) => r.line);
const runExit = (c: AttachClient): PhaseState | undefined =>
  c.events
    .flatMap((e) => (e.ev === 'phase' && e.state.phase === 'run' ? [e.state] : []))
    .find((s) => s.state === 'exited');
const teardowns = (c: AttachClient): TeardownRecord[] =>
  c.events.flatMap((e) => (e.ev === 'teardown' ? [e.record] : []));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the run phase; the epoch ms just before, the earliest its window can begin. */
async function startRun(n: GpuAgent): Promise<{ pid: number; at: number }> {
  const at = Date.now();
  const { pid } = await n.client.request('start', { phase: 'run', command: 'sleep 600' });
  return { pid, at };
}

describe('GPU idle rule', () => {
  it('stop: every GPU idle for the window stops the job as a cancel would, with the rule as its reason', async () => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'stop' });
    const run = await startRun(n);
    await n.client.waitFor((c) => runExit(c) !== undefined);
    const exit = runExit(n.client)!;
    expect(exit).toMatchObject({ cancelled: true, signal: 'SIGTERM', code: null });
    expect(exit.stoppedBy).toMatch(
      /^GPU idle rule: every GPU under 10% for \d+(\.\d)?s while the job ran$/,
    );
    const [fired, ...more] = firings(n.client);
    expect(more).toEqual([]);
    expect(fired).toMatchObject({ did: 'stopped_job', rule: { belowPct: 10, forMs: WINDOW_MS } });
    // After the window, not before.
    expect(fired!.at - run.at).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(fired!.idleForMs).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(agentLines(n.client)).toContainEqual(
      expect.stringMatching(/^GPU idle rule: .*; stopping the job \(then = "stop"\)$/),
    );
    expect(isGroupAlive(run.pid)).toBe(false);
    // The phase file keeps why: an app that looks later reads the same.
    const onDisk = JSON.parse(
      readFileSync(join(n.dir, 'phases', 'run.json'), 'utf8'),
    ) as PhaseState;
    expect(onDisk.stoppedBy).toBe(exit.stoppedBy);
  });

  it('notify: records the firing once and leaves the job running', async () => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'notify' });
    const run = await startRun(n);
    // Its line comes right after the record, maybe in the next batch.
    await n.client.waitFor((c) => agentLines(c).some((l) => l.startsWith('GPU idle rule:')));
    const [fired] = firings(n.client);
    expect(fired).toMatchObject({ did: 'notified' });
    expect(fired!.at - run.at).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(agentLines(n.client)).toContainEqual(
      expect.stringMatching(/^GPU idle rule: .*; the job goes on \(then = "notify"\)$/),
    );
    await sleep(3 * WINDOW_MS); // the same idle stretch: no second firing
    expect(firings(n.client)).toHaveLength(1);
    expect(runExit(n.client)).toBeUndefined();
    expect(isGroupAlive(run.pid)).toBe(true);
  });

  it('teardown: fires the dead-man switch with the teardown its last renewal named', async () => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'teardown' });
    const run = await startRun(n);
    await n.client.request('lease', {
      graceMs: 600_000,
      afterJob: 'destroy',
      teardown: { kind: 'remove-files' },
      checkMs: 50,
    });
    await n.client.waitFor((c) => teardowns(c).length > 0);
    expect(teardowns(n.client)[0]).toMatchObject({
      cause: 'gpu_idle',
      state: 'stopping_job',
      reason: expect.stringMatching(/^GPU idle rule: every GPU under 10% for /),
    });
    // The teardown event goes out at once; the log's records follow with its next batch.
    await n.client.waitFor((c) => firings(c).length > 0);
    expect(firings(n.client)).toMatchObject([{ did: 'tearing_down' }]);
    expect(firings(n.client)[0]!.at - run.at).toBeGreaterThanOrEqual(WINDOW_MS);
    await eventually(() => !isGroupAlive(run.pid));
  });

  it('teardown on a node whose switch no Tender armed: stops the job and says why', async () => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'teardown' });
    await startRun(n);
    await n.client.waitFor((c) => runExit(c) !== undefined);
    expect(firings(n.client)).toMatchObject([{ did: 'stopped_job' }]);
    expect(teardowns(n.client)).toEqual([]);
    expect(agentLines(n.client)).toContainEqual(
      expect.stringMatching(/stopping the job: no teardown, the dead-man switch was never armed/),
    );
  });

  it.each([
    ['a GPU at the threshold', '0, 10, 4, 81920\n'],
    ['one GPU busy, one idle', '0, 0, 4, 81920\n1, 87, 31245, 81920\n'],
    ['a GPU without a reading (MIG)', '0, 0, 4, 81920\n1, [N/A], 24205, 81920\n'],
  ])('never fires with %s', async (_name, usage) => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'stop' }, { usage });
    const run = await startRun(n);
    await sleep(3 * WINDOW_MS);
    // Sampled all along (equal samples are logged once): the rule saw these readings.
    expect(n.client.records().some((r) => r.src === 'gpu')).toBe(true);
    expect(firings(n.client)).toEqual([]);
    expect(runExit(n.client)).toBeUndefined();
    expect(isGroupAlive(run.pid)).toBe(true);
  });

  it('on a node without GPUs it says it cannot apply, at once', async () => {
    const n = await startNode({ belowPct: 10, forMs: WINDOW_MS, then: 'stop' }, { gpu: false });
    await n.client.waitFor((c) => agentLines(c).some((l) => l.includes('cannot apply')));
    expect(agentLines(n.client)).toContainEqual(
      'GPU idle rule (stop after 1s under 10%) cannot apply: nvidia-smi found no GPU on this node',
    );
  });
});
