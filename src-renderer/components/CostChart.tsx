import { useQuery } from '@tanstack/react-query';
import { BUDGET_WARNING } from '../../src-main/contract';
import { call } from '../api/backend';
import { money, perHour } from '../lib/format';
import { chartGeometry } from './cost-chart-geometry';
import './cost-chart.css';

const W = 600;
const H = 96;

/** A run's accrued cost over time (every lease of it, failed boot attempts included), with
 *  its budget and the 80% warning line. Refreshes while the run bills. */
export function CostChart(props: {
  runId: string;
  live: boolean;
  burnUsdPerHour: number;
}): React.JSX.Element | null {
  const q = useQuery({
    queryKey: ['cost.series', props.runId],
    queryFn: () => call('cost.series', { runId: props.runId, points: 80 }),
    refetchInterval: props.live ? 5_000 : false,
  });
  if (!q.data) return null;
  const { points, budgetUsd } = q.data;
  const spent = points.at(-1)?.usd ?? 0;
  const g = chartGeometry(points, budgetUsd, W, H);
  const share = budgetUsd ? spent / budgetUsd : null;
  return (
    <div className="cost-chart" data-testid="cost-chart">
      <div className="cost-chart-head">
        <span className="cost-chart-title">Cost</span>
        <span className="cost-chart-total">{money(spent, spent < 10 ? 4 : 2)}</span>
        {budgetUsd !== null && (
          <span
            className={`cost-chart-budget${share !== null && share >= BUDGET_WARNING ? ' warn' : ''}`}
          >
            {Math.round((share ?? 0) * 100)}% of a {money(budgetUsd)} budget
          </span>
        )}
        {props.live && <span className="cost-chart-burn">{perHour(props.burnUsdPerHour)} now</span>}
      </div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label="cost over time"
      >
        <path d={g.area} className="cost-chart-area" />
        <path d={g.line} className="cost-chart-line" vectorEffect="non-scaling-stroke" />
        {g.warnY !== null && (
          <line
            x1={0}
            x2={W}
            y1={g.warnY}
            y2={g.warnY}
            className="cost-chart-warn"
            vectorEffect="non-scaling-stroke"
          />
        )}
        {g.budgetY !== null && (
          <line
            x1={0}
            x2={W}
            y1={g.budgetY}
            y2={g.budgetY}
            className="cost-chart-budget-line"
            vectorEffect="non-scaling-stroke"
          />
        )}
      </svg>
    </div>
  );
}
