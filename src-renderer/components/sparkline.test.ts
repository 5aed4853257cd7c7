import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GpuIdleFired, NodeGpu } from '../../src-main/contract';
import { GpuIdleRuleNote } from './GpuIdleRule';
import { GpuUsage } from './GpuUsage';
import { sparklinePath, thresholdY } from './sparkline-geometry';

describe('sparklinePath', () => {
  it.each([
    { name: 'nothing', points: [], want: '' },
    {
      name: 'utilisation over time, 100% at the top',
      points: [
        { at: 0, util: 0 },
        { at: 5, util: 50 },
        { at: 10, util: 100 },
      ],
      want: 'M0.0,20.0 L50.0,10.0 L100.0,0.0',
    },
    {
      name: 'x by time, not by index',
      points: [
        { at: 0, util: 10 },
        { at: 90, util: 10 },
        { at: 100, util: 90 },
      ],
      want: 'M0.0,18.0 L90.0,18.0 L100.0,2.0',
    },
    {
      name: 'a sample without a reading breaks the line',
      points: [
        { at: 0, util: 40 },
        { at: 5, util: null },
        { at: 10, util: 40 },
        { at: 20, util: 60 },
      ],
      want: 'M0.0,12.0 M50.0,12.0 L100.0,8.0',
    },
    {
      name: 'one reading: a short flat stroke at the end',
      points: [{ at: 7, util: 25 }],
      want: 'M97.0,15.0 L100.0,15.0',
    },
    {
      name: 'out-of-range readings are clamped',
      points: [
        { at: 0, util: -5 },
        { at: 1, util: 130 },
      ],
      want: 'M0.0,20.0 L100.0,0.0',
    },
  ])('$name', ({ points, want }) => {
    expect(sparklinePath(points, 100, 20)).toBe(want);
  });
});

const gpu = (over: Partial<NodeGpu> = {}): NodeGpu => ({
  at: Date.UTC(2025, 11, 1, 14, 2, 11),
  gpus: [{ index: 0, util: 87, memUsedMiB: 31_245, memTotalMiB: 81_920 }],
  history: [
    { at: 0, util: 80 },
    { at: 5_000, util: 87 },
  ],
  stale: false,
  stalled: false,
  lastLineAt: null,
  ...over,
});

const html = (g: NodeGpu) => renderToStaticMarkup(createElement(GpuUsage, { gpu: g }));

describe('GpuUsage', () => {
  it('shows the sparkline and "GPU 87% · 31/80 GB"', () => {
    const out = html(gpu());
    expect(out).toContain('GPU 87% · 31/80 GB');
    expect(out).toMatch(
      /<svg class="sparkline"[^>]*aria-label="GPU utilisation over the last minutes"/,
    );
    // 80% then 87% across the 56 × 14 box.
    expect(out).toContain('d="M0.0,2.8 L56.0,1.8"');
    expect(out).toContain('GPU 0: 87% · 31/80 GB');
    expect(out).not.toContain('stalled?');
    expect(out).not.toContain('is-stale');
  });

  it('asks "stalled?" when the job is quiet on idle GPUs, and dims a stale sample', () => {
    expect(html(gpu({ stalled: true }))).toMatch(/data-testid="gpu-stalled"[^>]*>stalled\?</);
    expect(html(gpu({ stale: true }))).toContain('gpu-usage is-stale');
    expect(html(gpu({ stale: true }))).toContain('No sample since');
  });
});

describe('the GPU idle rule beside the chart', () => {
  it('draws its threshold on the sparkline: 10% of the 14 px box from the bottom', () => {
    const out = renderToStaticMarkup(createElement(GpuUsage, { gpu: gpu(), idleBelow: 10 }));
    expect(out).toMatch(/data-testid="sparkline-threshold"[^>]*y1="12.6"[^>]*y2="12.6"/);
    expect(html(gpu())).not.toContain('sparkline-threshold');
  });

  it.each([
    [0, 20],
    [50, 10],
    [100, 0],
    [130, 0],
  ])('thresholdY(%d%%) in a 20 px box is %d', (pct, y) => {
    expect(thresholdY(pct, 20)).toBe(y);
  });

  const rule = { belowPct: 10, forMs: 1_800_000, then: 'stop' } as const;
  const note = (fired: GpuIdleFired | null, gpuCount: number | null = 1) =>
    renderToStaticMarkup(createElement(GpuIdleRuleNote, { rule, fired, gpuCount }));

  it('says it cannot apply on a node whose probe found no GPU (not before the probe)', () => {
    expect(note(null, 0)).toContain('cannot apply: no GPU on this node');
    expect(note(null, null)).not.toContain('cannot apply');
    expect(note(null, 8)).not.toContain('cannot apply');
  });

  it('names the rule; once fired, what the node did', () => {
    expect(note(null)).toContain('GPU idle rule: stop after 30m under 10%');
    expect(note(null)).not.toContain('gpu-idle-fired');
    const fired: GpuIdleFired = {
      at: Date.UTC(2025, 11, 1, 14, 32, 0),
      rule,
      idleForMs: 1_800_000,
      did: 'stopped_job',
      reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
    };
    const out = note(fired);
    expect(out).toMatch(/class="badge plain red" data-testid="gpu-idle-fired"/);
    expect(out).toContain('GPUs idle: job stopped at');
    expect(out).toContain('every GPU under 10% for 30m while the job ran — stopped the job');
  });
});
