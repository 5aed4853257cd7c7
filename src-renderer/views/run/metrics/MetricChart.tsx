import { useMemo, useRef } from 'react';
import type uPlot from 'uplot';
import { UPlotChart } from '../../../components/UPlotChart';
import { alignLines, type Points } from './align';
import { metricChartOptions } from './chart-options';
import type { ChartLine } from './metric-lines';

/**
 * One metric against step, one line each. The chart is made again only when its lines
 * change (a new node or cell, another colour); new points alone reach it as data, aligned
 * again only when some line's points changed.
 */
export function MetricChart(props: {
  name: string;
  lines: readonly ChartLine[];
  /** uPlot's legend under the chart (false: the caller shows one of its own). */
  legend?: boolean;
  height?: number;
  /** The metric's name above the chart (false: the caller titles it). */
  caption?: boolean;
  testId?: string;
}): React.JSX.Element {
  const { lines, legend = true, height = 200 } = props;
  const signature = lines.map((l) => `${l.key}\u0000${l.label}\u0000${l.colour}`).join('\u0001');
  const options = useMemo(
    () => metricChartOptions({ lines, legend }),
    // The signature is what the options are made of; the points are data.
    [signature, legend],
  );
  const data = useAligned(lines.map((l) => l.points));
  return (
    <figure className="metric-chart" data-testid={props.testId} data-metric={props.name}>
      {props.caption !== false && (
        <figcaption className="metric-chart-name mono">{props.name}</figcaption>
      )}
      <UPlotChart options={options} data={data} height={height} />
    </figure>
  );
}

/** Aligned data, the same object while every line's points are the same arrays. */
function useAligned(points: readonly Points[]): uPlot.AlignedData {
  const memo = useRef<{ points: readonly Points[]; data: uPlot.AlignedData } | null>(null);
  const prev = memo.current;
  if (prev && prev.points.length === points.length && prev.points.every((p, i) => p === points[i]))
    return prev.data;
  const data = alignLines(points);
  memo.current = { points, data };
  return data;
}
