// The page bench/metrics-render.ts drives: the run view's MetricsPanel alone, with no
// backend, fed through `window.__metricsBench` the way a live poll feeds it (mergeSeries,
// then a render). Built by Vite with the renderer's plugins (bench/metrics-render.ts).
import { useState } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import type { MetricSeries } from '../../src-main/contract';
import { MetricsPanel } from '../../src-renderer/views/run/metrics/MetricsPanel';
import { mergeSeries, type HeldMetrics } from '../../src-renderer/views/run/metrics/metrics-poll';
import '../../src-renderer/styles.css';

export interface MetricsBench {
  /** Makes `lines` cells × `charts` metrics of `points` points each (the socket's JSON.parse
   *  stands for this: it is left out of the timing, in a task of its own). */
  prepare(opts: { lines: number; points: number; charts: number }): void;
  /** Renders what `prepare` made; the ms until every chart is drawn. */
  mount(): Promise<number>;
  /** Adds `points` points to every series, as one poll would; the ms until drawn. */
  append(points: number): Promise<number>;
}

declare global {
  interface Window {
    __metricsBench?: MetricsBench;
  }
}

const NAMES = ['loss', 'val_loss', 'acc', 'lr', 'grad_norm', 'throughput'];

/** Cell `c`'s value of metric `m` at `step`: a noisy decaying curve, different per cell. */
function value(c: number, m: number, step: number): number {
  const noise = Math.sin(step * 12.9898 + c * 78.233 + m) * 0.02;
  return (1 + c * 0.05) / Math.sqrt(1 + step / 200) + noise + m;
}

function seriesOf(lines: number, charts: number, from: number, count: number): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let c = 0; c < lines; c++) {
    for (let m = 0; m < charts; m++) {
      const points: [number, number][] = [];
      for (let s = from; s < from + count; s++) points.push([s, value(c, m, s)]);
      out.push({
        nodeId: `r-bench/node-${c % 4}`,
        cellId: `j${String(c).padStart(2, '0')}`,
        name: NAMES[m % NAMES.length]!,
        points,
      });
    }
  }
  return out;
}

let setHeld: (h: HeldMetrics) => void = () => {};
let held: HeldMetrics = { series: [], readTo: {}, skipped: 0 };
let shape = { lines: 0, charts: 0, next: 0 };

function Harness(): React.JSX.Element {
  const [metrics, set] = useState<HeldMetrics>(held);
  setHeld = set;
  return (
    <div style={{ width: 1100, padding: 16 }}>
      <MetricsPanel metrics={metrics} error={null} />
    </div>
  );
}

const nextTask = () => new Promise((r) => setTimeout(r, 0));

/** A render flushed now (effects included), then every chart's task after it (each chart
 *  is made, and fed, in a task of its own: timers of 0 ms run in order, so one queued now
 *  runs after theirs); with `charts`, until that many charts are made. */
async function timed(update: () => void, charts = 0): Promise<number> {
  const t0 = performance.now();
  flushSync(update);
  await nextTask();
  while (document.querySelectorAll('.metric-chart .uplot').length < charts) await nextTask();
  return performance.now() - t0;
}

createRoot(document.getElementById('root')!).render(<Harness />);

let prepared: MetricSeries[] = [];

window.__metricsBench = {
  prepare: ({ lines, points, charts }) => {
    shape = { lines, charts, next: points };
    prepared = seriesOf(lines, charts, 0, points);
  },
  mount: () => {
    held = { ...held, series: prepared };
    return timed(() => setHeld(held), shape.charts);
  },
  append: (points) => {
    // What the poll read (made outside the timing: the socket's JSON.parse stands for it).
    const incoming = seriesOf(shape.lines, shape.charts, shape.next, points);
    shape.next += points;
    return timed(() => {
      held = { ...held, series: mergeSeries(held.series, incoming) };
      setHeld(held);
    });
  },
};
