import { useMemo, useState } from 'react';
import type { CellView, RunView } from '../../../../src-main/contract';
import { describeError } from '../../../api/backend';
import { useNow } from '../../../lib/use-now';
import { PlayIcon } from '../icons';
import { METRICS_HOW } from '../metrics/MetricsPanel';
import type { HeldMetrics } from '../metrics/metrics-poll';
import { isActive } from '../RunHeader';
import { RerunError, useRerun } from '../Rerun';
import { cellMetricNames, cellScores, defaultDirection, type Direction } from './cell-metric';
import { sortCells, type CellSort } from './cell-sort';
import { CellCurves } from './CellCurves';
import { CellLog } from './CellLog';
import { CellsTable } from './CellsTable';
import { sweepParams } from './colour-by';
import { rerunnable, sweepSummary, type SweepCounts } from './sweep-summary';
import { useCancelCell, useCells } from './use-cells';
import '../metrics/metrics.css';
import './sweep.css';

/** Rows the table shows until asked for all (a sweep may have 10 000 cells). */
const ROWS_SHOWN = 200;
/** Curves overlaid at most: the first cells as the table sorts them. */
const MAX_CURVES = 100;

/**
 * A sweep at a glance: how many cells are where, a button to rerun the failed ones, every
 * cell in a sortable table with its params, status, node, exit, duration and the last and
 * best value of a chosen metric; under it, that metric's curve for every cell, coloured by
 * a chosen param.
 */
export function SweepPanel(props: {
  run: RunView;
  counts: SweepCounts;
  metrics: HeldMetrics | undefined;
}): React.JSX.Element {
  const { run, counts, metrics } = props;
  const now = useNow(isActive(run) ? 1000 : 60_000);
  const cells = useCells(run);
  const cancel = useCancelCell(run.id);
  const rerun = useRerun(run, { failed: true });

  const series = metrics?.series;
  const names = useMemo(() => cellMetricNames(series ?? []), [series]);
  const [picked, setPicked] = useState<string | null>(null);
  const metric = picked !== null && names.includes(picked) ? picked : (names[0] ?? null);
  const [directions, setDirections] = useState<Record<string, Direction>>({});
  const direction = metric ? (directions[metric] ?? defaultDirection(metric)) : 'min';
  const scores = useMemo(
    () => (metric ? cellScores(series ?? [], metric, direction) : new Map()),
    [series, metric, direction],
  );

  const list = cells.data;
  const params = useMemo(() => sweepParams(list ?? []), [list]);
  const [colourPick, setColourBy] = useState<string | null>(null);
  const colourBy =
    colourPick !== null && params.includes(colourPick) ? colourPick : (params[0] ?? null);
  const [sort, setSort] = useState<CellSort>({ key: 'id', dir: 'asc' });
  const rows = useMemo(
    () =>
      sortCells(
        (list ?? []).map((cell) => ({ cell, score: scores.get(cell.id) })),
        sort,
        now,
      ),
    [list, scores, sort, now],
  );
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? rows : rows.slice(0, ROWS_SHOWN);
  // In the sweep's order, so a re-sort that keeps the same cells keeps the same chart.
  const drawn = useMemo(
    () =>
      rows
        .slice(0, MAX_CURVES)
        .map((r) => r.cell)
        .sort((a, b) => a.index - b.index),
    [rows],
  );
  const [logOf, setLogOf] = useState<string | null>(null);
  const logCell = list?.find((c) => c.id === logOf) ?? null;

  return (
    <section className="card sweep-panel" data-testid="sweep-panel">
      <div className="sweep-head">
        <strong className="sweep-summary" data-testid="sweep-summary">
          {sweepSummary(counts)}
        </strong>
        <div className="grow" />
        {metric && (
          <>
            <label className="cells-choice">
              metric
              <select
                className="select"
                data-testid="cells-metric"
                value={metric}
                onChange={(e) => setPicked(e.target.value)}
              >
                {names.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <div className="pane-tabs" role="radiogroup" aria-label="Best is the">
              {(['min', 'max'] as const).map((d) => (
                <button
                  key={d}
                  role="radio"
                  aria-checked={direction === d}
                  className="pane-tab"
                  data-testid={`best-${d}`}
                  title={d === 'min' ? 'Best is the least value' : 'Best is the greatest value'}
                  onClick={() => setDirections({ ...directions, [metric]: d })}
                >
                  best = {d}
                </button>
              ))}
            </div>
          </>
        )}
        {rerunnable(counts) > 0 && (
          <button
            className="btn"
            data-testid="rerun-failed"
            disabled={rerun.isPending}
            title="A new run of only the failed and cancelled cells, with the same ids and values"
            onClick={rerun.start}
          >
            <PlayIcon /> {rerun.isPending ? 'Starting…' : 'Rerun failed cells'}
          </button>
        )}
      </div>
      <RerunError rerun={rerun} />
      {cells.error ? (
        <div className="alert">{describeError(cells.error)}</div>
      ) : !list ? (
        <div className="empty">Reading the cells…</div>
      ) : (
        <CellsTable
          rows={shown}
          params={params}
          metric={metric}
          direction={direction}
          sort={sort}
          onSort={setSort}
          now={now}
          onCancel={(c: CellView) => cancel.mutate(c.id)}
          cancelling={cancel.isPending ? (cancel.variables ?? null) : null}
          onLog={(c: CellView) => setLogOf(logOf === c.id ? null : c.id)}
          logOf={logOf}
        />
      )}
      {rows.length > shown.length && (
        <div className="cells-more">
          The first {shown.length} of {rows.length} cells, as sorted.{' '}
          <button className="btn btn-sm" onClick={() => setShowAll(true)}>
            Show all
          </button>
        </div>
      )}
      {logCell && (
        <CellLog key={logCell.id} runId={run.id} cell={logCell} onClose={() => setLogOf(null)} />
      )}
      {list &&
        (metric ? (
          <CellCurves
            series={series ?? []}
            metric={metric}
            cells={list}
            drawn={drawn}
            params={params}
            colourBy={colourBy}
            onColourBy={setColourBy}
          />
        ) : (
          <div className="empty sweep-no-metrics" data-testid="sweep-no-metrics">
            {metrics && metrics.series.length > 0
              ? 'The metrics read so far are not attributed to cells.'
              : METRICS_HOW}
          </div>
        ))}
    </section>
  );
}
