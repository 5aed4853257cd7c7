import type uPlot from 'uplot';
import type { ChartOptions } from '../../../components/UPlotChart';

/** The theme's colours on the canvas (styles.css: --text-dim, --text-faint, --border). */
const AXIS = '#9aa4b2';
const GRID = '#232a34';
const TICK = '#2a313c';
const FONT = "11px 'DejaVu Sans', system-ui, sans-serif";

/** 0.000312, 1.23e-7, 12 345: four significant digits, no float noise. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) return v.toExponential(2);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return String(Number(v.toPrecision(4)));
}

const axis = (label?: string): uPlot.Axis => ({
  stroke: AXIS,
  font: FONT,
  labelFont: FONT,
  grid: { stroke: GRID, width: 1 },
  ticks: { stroke: TICK, width: 1, size: 4 },
  ...(label ? { label, labelSize: 16 } : {}),
});

/** The newest value of a data column (a line's latest point; x: the last step). */
function lastValue(values: uPlot.AlignedData[number] | undefined): number | null {
  if (!values) return null;
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** The legend's value of a series: under the cursor, else its newest. */
const legendValue = (u: uPlot, v: number | null, series: number, idx: number | null | undefined) =>
  formatValue(idx == null ? lastValue(u.data[series]) : v);

/**
 * A metric against step: x is the step (numbers, not time), one series per line with its
 * colour, gaps spanned (lines of a chart need not share their steps). `legend`: uPlot's
 * own (each line's label and its value under the cursor, else its newest); off where the
 * caller draws one.
 */
export function metricChartOptions(opts: {
  lines: readonly { label: string; colour: string }[];
  legend: boolean;
}): ChartOptions {
  return {
    scales: { x: { time: false } },
    legend: {
      show: opts.legend,
      live: true,
      markers: {
        width: 0,
        fill: (_u, i) => (i === 0 ? 'transparent' : (opts.lines[i - 1]?.colour ?? AXIS)),
      },
    },
    cursor: { drag: { x: true, y: false }, points: { size: 6 } },
    axes: [
      { ...axis(), values: (_u, ticks) => ticks.map(formatValue) },
      { ...axis(), size: 56, values: (_u, ticks) => ticks.map(formatValue) },
    ],
    series: [
      { label: 'step', value: legendValue },
      ...opts.lines.map((l): uPlot.Series => ({
        label: l.label,
        stroke: l.colour,
        width: 1.5,
        spanGaps: true,
        value: legendValue,
        points: { size: 4, fill: l.colour },
      })),
    ],
  };
}
