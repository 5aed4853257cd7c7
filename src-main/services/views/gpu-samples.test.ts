import { describe, expect, it } from 'vitest';
import { encodeGpuSample } from '../../../src-agent/wire/gpu-sample';
import type { LogRecord } from '../../contract';
import { GpuSamples, HISTORY_POINTS } from './gpu-samples';

const MIN = 60_000;
const T = 1_800_000_000_000;
const NODE = 'r-abc123/node-0';

let seq = 0;
function sample(t: number, ...utils: (number | null)[]): LogRecord {
  const gpus = utils.map((util, i) => ({ i, util, memUsed: 31_744, memTotal: 81_920 }));
  return rec(t, 'gpu', encodeGpuSample({ t, gpus }));
}
function rec(ts: number, source: LogRecord['source'], line: string, node = NODE): LogRecord {
  return { run: 'r-abc123', node, channel: 'agent', source, stream: 'info', seq: ++seq, ts, line };
}

function harness(now = T, stored: LogRecord[] = []) {
  const changes: string[][] = [];
  const reads: string[] = [];
  const samples = new GpuSamples({
    now: () => now,
    readTail: (id) => (reads.push(id), Promise.resolve(stored.filter((r) => r.node === id))),
    onChange: (ids) => changes.push(ids),
  });
  return { samples, changes, reads };
}

const running = { isJobRunning: true, utilBelow: 5 };

describe('GpuSamples', () => {
  it('summarises the latest sample, with the mean utilisation per sample as the sparkline', () => {
    const { samples, changes } = harness();
    samples.feed([
      sample(T - 10_000, 80, 90),
      rec(T - 7_000, 'run', 'epoch 1'),
      sample(T - 5_000, 100, null),
    ]);
    expect(changes).toEqual([[NODE]]);
    expect(samples.summary(NODE, running)).toEqual({
      at: T - 5_000,
      gpus: [
        { index: 0, util: 100, memUsedMiB: 31_744, memTotalMiB: 81_920 },
        { index: 1, util: null, memUsedMiB: 31_744, memTotalMiB: 81_920 },
      ],
      history: [
        { at: T - 10_000, util: 85 },
        { at: T - 5_000, util: 100 },
      ],
      stale: false,
      stalled: false,
      lastLineAt: T - 7_000,
    });
  });

  it('keeps the last 60 points, and nothing for nodes without samples', () => {
    const { samples } = harness();
    samples.feed(Array.from({ length: 100 }, (_, i) => sample(T - (100 - i) * 5_000, i)));
    const h = samples.summary(NODE, running)!.history;
    expect(h).toHaveLength(HISTORY_POINTS);
    expect(h.at(-1)!.util).toBe(99);
    expect(samples.summary('r-abc123/node-1', running)).toBeNull();
  });

  it('drops records it already has (a resumed stream overlaps) and other channels', () => {
    const { samples } = harness();
    const a = sample(T - 5_000, 40);
    samples.feed([a]);
    samples.feed([{ ...a, line: encodeGpuSample({ t: T, gpus: [] }) }]);
    samples.feed([{ ...sample(T, 1), channel: 'events' }]);
    expect(samples.summary(NODE, running)!.history).toEqual([{ at: T - 5_000, util: 40 }]);
  });

  it('flags a running job quiet for 10 min on idle GPUs as stalled, and a new line clears it', () => {
    const { samples, changes } = harness();
    samples.feed([
      rec(T - 30 * MIN, 'run', 'epoch 7'),
      sample(T - 12 * MIN, 0),
      sample(T - 1_000, 2),
    ]);
    expect(samples.summary(NODE, running)!.stalled).toBe(true);
    expect(samples.summary(NODE, { ...running, isJobRunning: false })!.stalled).toBe(false);
    // The run's own threshold: below 2% they were not.
    expect(samples.summary(NODE, { ...running, utilBelow: 2 })!.stalled).toBe(false);
    changes.length = 0;
    samples.feed([rec(T - 500, 'run', 'epoch 8')]);
    expect(changes).toEqual([[NODE]]);
    expect(samples.summary(NODE, running)!.stalled).toBe(false);
  });

  it('says a sample minutes old is stale, and never stalled then', () => {
    const { samples } = harness(T + 10 * MIN);
    samples.feed([sample(T - 20 * MIN, 0), sample(T, 0)]);
    expect(samples.summary(NODE, running)).toMatchObject({ stale: true, stalled: false });
  });

  it('reads a node it does not stream from its stored tail; one it streams, never', async () => {
    const stored = [sample(T - 10_000, 30), rec(T - 6_000, 'run', 'x'), sample(T - 5_000, 60)];
    const { samples, reads } = harness(T, stored);
    await samples.prime([NODE]);
    expect(samples.summary(NODE, running)).toMatchObject({
      at: T - 5_000,
      history: [
        { at: T - 10_000, util: 30 },
        { at: T - 5_000, util: 60 },
      ],
      lastLineAt: T - 6_000,
    });
    await samples.prime([NODE]); // read a moment ago: not again
    expect(reads).toEqual([NODE]);

    const other = 'r-abc123/node-1';
    samples.feed([rec(T, 'run', 'live', other)]);
    await samples.prime([other]);
    expect(reads).toEqual([NODE]);
  });
});
