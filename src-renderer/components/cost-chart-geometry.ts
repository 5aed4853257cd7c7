import { BUDGET_WARNING } from '../../src-main/contract';

/** Pure geometry of a run's cost chart: accrued dollars over time, and the budget line. */
export interface ChartPoint {
  at: number;
  usd: number;
}

export interface ChartGeometry {
  /** SVG path of the accrued line, in a width × height box. */
  line: string;
  /** The same, closed down to the x axis (the filled area). */
  area: string;
  /** y of the budget line (null without a budget). */
  budgetY: number | null;
  /** y of the 80% warning line. */
  warnY: number | null;
  /** The dollar value at the top of the box. */
  maxUsd: number;
}

export function chartGeometry(
  points: readonly ChartPoint[],
  budgetUsd: number | null,
  width: number,
  height: number,
): ChartGeometry {
  const last = points.at(-1)?.usd ?? 0;
  // The budget stays in view; without one, a little headroom over what was spent.
  const maxUsd = Math.max(budgetUsd ?? 0, last * 1.15, 0.0001);
  const t0 = points[0]?.at ?? 0;
  const span = Math.max(1, (points.at(-1)?.at ?? t0) - t0);
  const x = (at: number) => ((at - t0) / span) * width;
  const y = (usd: number) => height - (usd / maxUsd) * height;
  const coords = points.map((p) => `${x(p.at).toFixed(1)},${y(p.usd).toFixed(1)}`);
  const line = coords.length ? `M${coords.join(' L')}` : '';
  const area = coords.length
    ? `${line} L${x(points.at(-1)!.at).toFixed(1)},${height} L0,${height} Z`
    : '';
  return {
    line,
    area,
    budgetY: budgetUsd === null ? null : y(budgetUsd),
    warnY: budgetUsd === null ? null : y(budgetUsd * BUDGET_WARNING),
    maxUsd,
  };
}
