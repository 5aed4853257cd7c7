// The GPU idle rule on the built agent, as real processes, with a fake `nvidia-smi` first
// on the daemon's PATH printing nvidia-smi's real CSV shapes: with every GPU below the
// threshold for the (short) window while the run phase runs, `stop` stops the job as a
// cancel would, `notify` only records it, `teardown` fires the dead-man switch; a GPU at
// or above the threshold never triggers it. Build first: `npm run build:agent`.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GPU_IDLE_LOG_SOURCE,
  type GpuIdleFiring,
  type GpuIdleRule,
  decodeGpuIdleFiring,
} from '../../src-agent/wire/gpu-idle';
import type { PhaseState, StartOutput, TeardownRecord } from '../../src-agent/wire/protocol';
import {
  AttachClient,
  isGroupAlive,
  killAgent,
  markedJson,
  runAgent,
} from '../helpers/agent-bundle';
import { eventually } from '../helpers/wait';

const roots: string[] = [];
const nodeDirs: string[] = [];
const clients: AttachClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.kill();
  for (const d of nodeDirs.splice(0)) await killAgent(d);
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

const SAMPLE_MS = 150; // a test's sampling; nodes sample every 5 s
const WINDOW_MS = 1_000; // `for = "1s"`: short, for a test; nodes use minutes
const IDLE = '0, 3, 4, 81920\n1, 0, 4, 81920\n'; // both GPUs below 10%
const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '../fixtures/nvidia-smi', name), 'utf8');

interface Node {
  dir: string;
  client: AttachClient;
}

/** A daemon whose PATH starts with a fake nvidia-smi (the A100 fixture's probe and banner;
 *  `usage` as the sampler's reading), configured with `rule`. `gpu: false`: no nvidia-smi. */
async function startNode(rule: GpuIdleRule, opts: { usage?: string; gpu?: boolean } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'tender-gpu-idle-'));
  roots.push(root);
  const dir = join(root, 'node');
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(root, 'usage.csv'), opts.usage ?? IDLE);
  writeFileSync(join(root, 'query.csv'), fixture('a100-80gb.query.csv'));
  writeFileSync(join(root, 'banner.txt'), fixture('a100-80gb.banner.txt'));
  if (opts.gpu !== false) {
    const fake = join(bin, 'nvidia-smi');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'case "$1" in',
        `  --query-gpu=index,utilization.gpu,*) cat ${join(root, 'usage.csv')} ;;`,
        `  --query-gpu=*) cat ${join(root, 'query.csv')} ;;`,
        `  *) cat ${join(root, 'banner.txt')} ;;`,
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
  }
  nodeDirs.push(dir);
  const res = await runAgent(['start', '--dir', dir], undefined, {
    PATH: `${bin}:${process.env.PATH}`,
    TENDER_AGENT_GPU_SAMPLE_MS: String(SAMPLE_MS),
  });
  expect(res.code, res.stderr).toBe(0);
  markedJson<StartOutput>(res.stdout);
  const client = new AttachClient(dir);
  clients.push(client);
  await client.request('configure', { jobId: 'job-1', attempt: 0, gpuIdle: rule });
  await client.request('subscribe', { fromSeq: 1 });
  return { dir, client } satisfies Node;
}

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
async function startRun(n: Node): Promise<{ pid: number; at: number }> {
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
