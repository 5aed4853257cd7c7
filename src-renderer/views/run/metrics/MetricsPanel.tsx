import { useMemo } from 'react';
import { describeError } from '../../../api/backend';
import type { HeldMetrics } from './metrics-poll';
import { MetricChart } from './MetricChart';
import { metricCharts } from './metric-lines';
import './metrics.css';

/** Lines a chart draws at most (a big sweep's Metrics tab: the first cells by id). */
const MAX_LINES = 100;

/** The one line that says where metrics come from. */
export const METRICS_HOW = (
  <>
    A job reports metrics by appending JSON lines to <span className="mono">$TENDER_METRICS</span>,
    e.g. <span className="mono">{`echo '{"step": 1, "loss": 0.5}' >> $TENDER_METRICS`}</span>
  </>
);

/** Every metric of the run against step, one chart each, one line per node (per cell in
 *  a sweep), live while the run goes on. */
export function MetricsPanel(props: {
  metrics: HeldMetrics | undefined;
  error: unknown;
}): React.JSX.Element {
  const { metrics, error } = props;
  const charts = useMemo(() => metricCharts(metrics?.series ?? []), [metrics?.series]);
  const most = Math.max(0, ...charts.map((c) => c.lines.length));
  if (!metrics) {
    return (
      <section className="card metrics-panel" data-testid="metrics-panel">
        <div className="empty">{error ? describeError(error) : 'Reading metrics…'}</div>
      </section>
    );
  }
  return (
    <section className="card metrics-panel" data-testid="metrics-panel">
      <div className="card-head">
        Metrics
        <span className="faint card-sub">
          {charts.length === 0
            ? 'none yet'
            : `${charts.length} metric${charts.length === 1 ? '' : 's'} against step; drag to zoom, double-click to zoom out`}
          {most > MAX_LINES &&
            ` · the first ${MAX_LINES} of ${most} lines each (the Cells tab draws the cells as sorted)`}
          {metrics.skipped > 0 &&
            ` · ${metrics.skipped.toLocaleString('en-US')} line${metrics.skipped === 1 ? ' was' : 's were'} no JSON object`}
        </span>
      </div>
      {error !== null && error !== undefined && (
        <div className="alert metrics-error">{describeError(error)}; retrying</div>
      )}
      {charts.length === 0 ? (
        <div className="empty metrics-empty" data-testid="metrics-empty">
          <strong>No metrics yet</strong>
          {METRICS_HOW}
        </div>
      ) : (
        <div className="metrics-grid">
          {charts.map((c) => (
            <MetricChart
              key={c.name}
              name={c.name}
              lines={c.lines.length > MAX_LINES ? c.lines.slice(0, MAX_LINES) : c.lines}
              testId="metric-chart"
            />
          ))}
        </div>
      )}
    </section>
  );
}
