import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeGpuSample } from '../../wire/gpu-sample';
import { GPU_HEARTBEAT_MS, GpuSampler, type RunningQuery, sampleEveryMs } from './gpu-sampler';

/** A sampler on vitest's fake clock whose nvidia-smi answers `answer()` after `takesMs`. */
function harness(answer: () => string | undefined, takesMs = 0) {
  const lines: string[] = [];
  const world = { started: 0, inFlight: 0, maxInFlight: 0, killed: 0 };
  const query = (): RunningQuery => {
    world.started++;
    world.inFlight++;
    world.maxInFlight = Math.max(world.maxInFlight, world.inFlight);
    let timer: NodeJS.Timeout;
    const result = new Promise<string | undefined>((resolve) => {
      const done = () => {
        world.inFlight--;
        resolve(answer());
      };
      if (takesMs === 0) done();
      else timer = setTimeout(done, takesMs);
    });
    return {
      result,
      kill: () => {
        clearTimeout(timer);
        world.inFlight--;
        world.killed++;
      },
    };
  };
  const sampler = new GpuSampler({
    log: { append: (_src, _stream, line) => (lines.push(line), lines.length) },
    everyMs: 1_000,
    nowMono: () => Date.now(),
    now: () => Date.now(),
    query,
  });
  return { sampler, lines, world };
}

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

describe('GpuSampler', () => {
  it('samples nothing until enabled', async () => {
    const { lines, world } = harness(() => '0, 50, 1, 2\n');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(world.started).toBe(0);
    expect(lines).toEqual([]);
  });

  it('logs one line per sample, and never runs two queries at once', async () => {
    let util = 0;
    const { sampler, lines, world } = harness(() => `0, ${(util += 10)}, 1, 2\n`, 2_500);
    sampler.setEnabled(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(world.maxInFlight).toBe(1);
    // 2.5 s per query + 1 s between: t ≈ 2.5, 6, 9.5
    expect(lines.map((l) => decodeGpuSample(l)?.gpus[0]?.util)).toEqual([10, 20, 30]);
    const [a, b] = lines.map((l) => decodeGpuSample(l)!.t);
    expect(b! - a!).toBeGreaterThanOrEqual(3_500);
  });

  it('leaves out samples equal to the last written, but writes one a minute', async () => {
    const { sampler, lines } = harness(() => '0, 0, 4, 81559\n');
    sampler.setEnabled(true);
    await vi.advanceTimersByTimeAsync(GPU_HEARTBEAT_MS + 500);
    const ts = lines.map((l) => decodeGpuSample(l)!.t);
    expect(ts).toHaveLength(2);
    expect(ts[1]! - ts[0]!).toBeGreaterThanOrEqual(GPU_HEARTBEAT_MS);
  });

  it('keeps the idle clock on every sample, written or not', async () => {
    let util = 90;
    const { sampler } = harness(() => `0, ${util}, 4, 81559\n`);
    sampler.setEnabled(true);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(sampler.idle.belowSince(5)).toBeNull();
    util = 0;
    const from = Date.now();
    await vi.advanceTimersByTimeAsync(5_000);
    const since = sampler.idle.belowSince(5)!;
    // From the first idle sample on, not before and not from a later one.
    expect(since).toBeGreaterThan(from);
    expect(since).toBeLessThanOrEqual(from + 1_001);
  });

  it('backs off while nvidia-smi fails, and missing data is never idle', async () => {
    let text: string | undefined = '0, 0, 1, 2\n';
    const { sampler, lines, world } = harness(() => text);
    sampler.setEnabled(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(sampler.idle.belowSince(5)).not.toBeNull();
    text = undefined;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sampler.idle.belowSince(5)).toBeNull();
    const before = world.started;
    await vi.advanceTimersByTimeAsync(30_000); // waits 2, 4, 8, 16 s…
    expect(world.started - before).toBeLessThanOrEqual(4);
    expect(lines).toHaveLength(1);
  });

  it('stops on shutdown: the query in flight is killed, nothing more is logged', async () => {
    const { sampler, lines, world } = harness(() => '0, 50, 1, 2\n', 3_000);
    sampler.setEnabled(true);
    await vi.advanceTimersByTimeAsync(1_000);
    sampler.stop();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(world.killed).toBe(1);
    expect(world.started).toBe(1);
    expect(lines).toEqual([]);
  });
});

describe('sampleEveryMs', () => {
  it.each([
    [undefined, 5_000],
    ['250', 250],
    ['10', 100],
    ['0', 0],
    ['soon', 5_000],
  ])('TENDER_AGENT_GPU_SAMPLE_MS=%s samples every %i ms', (v, ms) => {
    expect(sampleEveryMs(v === undefined ? {} : { TENDER_AGENT_GPU_SAMPLE_MS: v })).toBe(ms);
  });
});
