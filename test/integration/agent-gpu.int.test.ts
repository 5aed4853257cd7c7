// GPU samples of the built agent, as real processes, with a fake `nvidia-smi` first on the
// daemon's PATH printing nvidia-smi's real CSV shapes: samples arrive in the log with seqs,
// stop at shutdown, and idle_gpu_util_below makes the dead-man switch fire `idle` on a job
// whose GPUs sit at 0%. Build first: `npm run build:agent`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeGpuSample } from '../../src-agent/wire/gpu-sample';
import type { AgentLogRecord, LeaseParams, TeardownRecord } from '../../src-agent/wire/protocol';
import { type AttachClient, isGroupAlive } from '../helpers/agent-bundle';
import { GPU_SAMPLE_MS as SAMPLE_MS, useGpuAgents } from '../helpers/gpu-agent';
import { eventually } from '../helpers/wait';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '../fixtures/nvidia-smi', name), 'utf8');
const gpuAgent = useGpuAgents('tender-gpu-');

/** A daemon whose PATH starts with a fake nvidia-smi answering the capability probe (the
 *  A100 fixture), the banner, and the sampler's usage query (`usage`, by default the
 *  fixture's 87%). `gpu: false`: a node without nvidia-smi at all. */
const startNode = (opts: { gpu?: boolean; usage?: string } = {}) =>
  gpuAgent({ ...opts, usage: opts.usage ?? fixture('a100-80gb.usage.csv') });

function gpuRecords(c: AttachClient): AgentLogRecord[] {
  return c.records().filter((r) => r.src === 'gpu');
}

function fileRecords(dir: string): AgentLogRecord[] {
  return readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AgentLogRecord);
}

function teardowns(c: AttachClient): TeardownRecord[] {
  return c.events.flatMap((e) => (e.ev === 'teardown' ? [e.record] : []));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const idleLease = (over: Partial<LeaseParams> = {}): LeaseParams => ({
  graceMs: 60_000,
  afterJob: 'keep_warm',
  idleTimeoutMs: 1_000,
  teardown: { kind: 'remove-files' },
  checkMs: 50,
  ...over,
});

describe('GPU samples', () => {
  it('arrive in the log as gpu records with seqs, follow the GPUs, and stop at shutdown', async () => {
    const n = await startNode();
    expect((await n.client.request('hello')).capabilities['gpu.count']).toBe(1);
    await n.client.waitFor((c) => gpuRecords(c).length >= 1);
    const first = gpuRecords(n.client)[0]!;
    expect(first).toMatchObject({ src: 'gpu', stream: 'info' });
    expect(decodeGpuSample(first.line)).toEqual({
      t: expect.any(Number),
      gpus: [{ i: 0, util: 87, memUsed: 31245, memTotal: 81920 }],
    });

    // The job's own output interleaves with the samples on one seq. It ignores SIGTERM,
    // so the shutdown below waits its grace for it.
    await n.client.request('start', {
      phase: 'run',
      command: `trap '' TERM; echo hello; sleep 600`,
    });
    writeFileSync(n.usage, '0, 12, 40000, 81920\n');
    await n.client.waitFor((c) =>
      gpuRecords(c).some((r) => decodeGpuSample(r.line)?.gpus[0]?.util === 12),
    );
    const seqs = n.client.records().map((r) => r.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // every record once, in order, no gap
    expect(n.client.records().some((r) => r.src === 'run' && r.line === 'hello')).toBe(true);
    // What the subscriber got is what the file holds.
    const inFile = fileRecords(n.dir).filter((r) => r.src === 'gpu');
    expect(inFile.slice(0, gpuRecords(n.client).length)).toEqual(gpuRecords(n.client));

    // Every sample differs from here: each would be written, if one were taken.
    writeFileSync(join(n.bin, 'vary'), '');
    const varied = gpuRecords(n.client).length;
    await n.client.waitFor((c) => gpuRecords(c).length >= varied + 3);
    await n.client.request('shutdown', { graceMs: 1_000 });
    const records = fileRecords(n.dir);
    const stoppedAt = records.findIndex(
      (r) => r.src === 'agent' && r.line === 'agent shutting down',
    );
    expect(stoppedAt).toBeGreaterThan(0);
    expect(records.slice(stoppedAt).filter((r) => r.src === 'gpu')).toEqual([]);
  });

  it('writes none where nvidia-smi is missing or fails', async () => {
    const none = await startNode({ gpu: false });
    const broken = await startNode({ usage: fixture('driver-failure.txt') });
    await sleep(SAMPLE_MS * 8);
    expect(gpuRecords(none.client)).toEqual([]);
    expect(gpuRecords(broken.client)).toEqual([]);
    expect((await none.client.request('hello')).capabilities['gpu.count']).toBeUndefined();
    // The broken one's probe found the GPU; its sampler keeps trying, quietly.
    expect((await broken.client.request('hello')).capabilities['gpu.count']).toBe(1);
    expect(fileRecords(broken.dir).filter((r) => r.stream === 'stderr')).toEqual([]);
  });
});

describe('idle_gpu_util_below', () => {
  it('fires idle on a running job whose GPUs sit below the threshold for idle_timeout', async () => {
    const n = await startNode({ usage: '0, 0, 4, 81920\n' });
    const { pid } = await n.client.request('start', { phase: 'run', command: 'sleep 600' });
    const renewedAt = Date.now();
    await n.client.request('lease', idleLease({ idleGpuUtilBelow: 5 }));
    await sleep(SAMPLE_MS * 3); // a sample of the run phase was read: the renewal says so
    const answer = await n.client.request('lease', idleLease({ idleGpuUtilBelow: 5 }));
    expect(answer.cause).toBe('idle');
    expect(answer.firesInMs).toBeLessThan(1_000);
    await n.client.waitFor((c) => teardowns(c).length > 0);
    const [record] = teardowns(n.client);
    expect(record).toMatchObject({ cause: 'idle', state: 'stopping_job' });
    expect(record!.reason).toMatch(/^GPU-idle: every GPU below 5% for \d/);
    expect(record!.at - renewedAt).toBeGreaterThanOrEqual(1_000);
    await eventually(() => !isGroupAlive(pid));
  });

  it('without it, a running job on idle GPUs is left alone', async () => {
    const n = await startNode({ usage: '0, 0, 4, 81920\n' });
    await n.client.request('start', { phase: 'run', command: 'sleep 600' });
    const answer = await n.client.request('lease', idleLease());
    expect(answer.cause).toBe('unreachable'); // no idle deadline while a phase runs
    const before = gpuRecords(n.client).length;
    await sleep(2_500); // 2.5× the idle timeout, with the GPUs at 0% all along
    expect(teardowns(n.client)).toEqual([]);
    expect((await n.client.request('status')).phases.run?.state).toBe('running');
    // The heartbeat is a minute: equal samples are not rewritten, but one was read.
    expect(before).toBeGreaterThanOrEqual(1);
  });

  it('with busy GPUs the job runs on, and busy again restarts the clock', async () => {
    const n = await startNode({ usage: '0, 93, 70000, 81920\n' });
    await n.client.request('start', { phase: 'run', command: 'sleep 600' });
    await n.client.request('lease', idleLease({ idleGpuUtilBelow: 5, idleTimeoutMs: 1_500 }));
    await sleep(2_000);
    expect(teardowns(n.client)).toEqual([]);
    writeFileSync(n.usage, '0, 0, 4, 81920\n');
    const idleFrom = Date.now();
    await n.client.waitFor((c) => teardowns(c).length > 0);
    expect(teardowns(n.client)[0]!.at - idleFrom).toBeGreaterThanOrEqual(1_500 - SAMPLE_MS);
  });
});
